//! Serves the fixture MCP server over stdio (for tests of stdio children).

#![forbid(unsafe_code)]

use rmcp::ServiceExt;

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let server = deft_test_support::fixture::FixtureServer::new()
        .serve(rmcp::transport::stdio())
        .await?;
    server.waiting().await?;
    Ok(())
}
