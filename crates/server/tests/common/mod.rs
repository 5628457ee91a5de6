//! A real server on loopback and raw WebSocket devices that speak the wire format by hand.

#![allow(dead_code)]
#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

use std::net::SocketAddr;
use std::time::Duration;

use deft_protocol::link::{
    ClientMessage, ClientMessageType, ServerMessage, ServerMessageType, TaskStatus,
};
use deft_server::{LinkLimits, Registry, Server, ServerConfig};
use futures::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_util::sync::CancellationToken;

pub mod console_hub;

pub const DEVICE_TOKEN: &str = "device-secret";
pub const API_TOKEN: &str = "api-secret";

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A server running in this process on a free loopback port; stops when dropped.
pub struct Hub {
    pub addr: SocketAddr,
    pub registry: Registry,
    stop: CancellationToken,
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Hub {
    pub async fn start(limits: LinkLimits) -> Hub {
        Hub::start_with(|config| config.limits = limits).await
    }

    /// A server whose configuration `adjust` changes first.
    pub async fn start_with(adjust: impl FnOnce(&mut ServerConfig)) -> Hub {
        let mut config = ServerConfig::new("127.0.0.1:0".parse().unwrap(), DEVICE_TOKEN, API_TOKEN);
        adjust(&mut config);
        let server = Server::bind(config).await.expect("bind");
        let addr = server.local_addr();
        let registry = server.registry();
        let stop = CancellationToken::new();
        tokio::spawn(server.serve(stop.clone()));
        Hub {
            addr,
            registry,
            stop,
        }
    }

    /// Stops the server (as Ctrl-C does for `deft serve`).
    pub fn stop(&self) {
        self.stop.cancel();
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn api(&self) -> deft_server::api_client::ApiClient {
        deft_server::api_client::ApiClient::new(&self.url(), API_TOKEN).unwrap()
    }

    /// Opens /ws with `token` as Bearer (no registration yet).
    pub async fn connect(&self, token: &str) -> Ws {
        let mut req = format!("ws://{}/ws", self.addr)
            .into_client_request()
            .unwrap();
        req.headers_mut()
            .insert("authorization", format!("Bearer {token}").parse().unwrap());
        tokio_tungstenite::connect_async(req)
            .await
            .expect("connect")
            .0
    }

    /// Connects and registers as `id`; returns after the ack.
    pub async fn device(&self, id: &str) -> Ws {
        let mut ws = self.connect(DEVICE_TOKEN).await;
        send(&mut ws, &register(id)).await;
        let ack = recv(&mut ws).await;
        assert_eq!(
            (ack.kind, ack.status),
            (ServerMessageType::Heartbeat, TaskStatus::Ok),
            "{ack:?}"
        );
        ws
    }

    pub async fn wait_gone(&self, id: &str) {
        for _ in 0..500 {
            if deft_tools::Devices::get(&self.registry, id).is_none() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("device {id} still registered");
    }
}

pub fn register(id: &str) -> ClientMessage {
    let mut m = ClientMessage::new(ClientMessageType::Register, TaskStatus::Ok);
    m.client_id = Some(id.to_owned());
    m.metadata =
        Some(serde_json::json!({"profile": "shell", "tools": ["fixture"], "platform": "linux"}));
    m
}

pub fn heartbeat(id: &str) -> ClientMessage {
    let mut m = ClientMessage::new(ClientMessageType::Heartbeat, TaskStatus::Ok);
    m.client_id = Some(id.to_owned());
    m
}

pub async fn send<T: serde::Serialize>(ws: &mut Ws, m: &T) {
    ws.send(Message::text(serde_json::to_string(m).unwrap()))
        .await
        .expect("send");
}

pub async fn send_text(ws: &mut Ws, text: &str) {
    ws.send(Message::text(text.to_owned())).await.expect("send");
}

/// The next frame (10 s at most).
pub async fn next_frame(ws: &mut Ws) -> Option<Message> {
    match tokio::time::timeout(Duration::from_secs(10), ws.next()).await {
        Ok(Some(Ok(m))) => Some(m),
        Ok(_) => None,
        Err(_) => panic!("no frame within 10 s"),
    }
}

/// The next server message (text frames only; pings skipped).
pub async fn recv(ws: &mut Ws) -> ServerMessage {
    loop {
        match next_frame(ws).await {
            Some(Message::Text(t)) => {
                return serde_json::from_str(&t).unwrap_or_else(|e| panic!("{e}: {t}"));
            }
            Some(Message::Close(f)) => panic!("closed: {f:?}"),
            Some(_) => continue,
            None => panic!("connection ended"),
        }
    }
}

/// The text of the next message, which must be an `error`.
pub async fn recv_error(ws: &mut Ws) -> String {
    let m = recv(ws).await;
    assert_eq!(
        (m.kind, m.status),
        (ServerMessageType::Error, TaskStatus::Error),
        "{m:?}"
    );
    m.error.unwrap_or_default()
}

/// Sends a heartbeat and expects its ack: the connection is alive and in order.
pub async fn alive(ws: &mut Ws, id: &str) {
    send(ws, &heartbeat(id)).await;
    let m = recv(ws).await;
    assert_eq!(
        (m.kind, m.status),
        (ServerMessageType::Heartbeat, TaskStatus::Ok),
        "{m:?}"
    );
}

/// The close code the connection ends with (after any text frames).
pub async fn close_code(ws: &mut Ws) -> Option<u16> {
    loop {
        match next_frame(ws).await {
            Some(Message::Close(f)) => return f.map(|f| u16::from(f.code)),
            Some(_) => continue,
            None => return None,
        }
    }
}
