//! One open stream of the double, as a service sees it: writes go out one `WRTE` at a time,
//! each waiting for the server's `OKAY` (adbd's rule), reads are the server's `WRTE`s.

use deft_adb::wire::header::{A_CLSE, A_WRTE, Message};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

/// What goes to the connection's writer.
#[derive(Debug)]
pub(crate) enum Out {
    /// A message to send.
    Message(Message),
    /// Shut the connection (a phone pulled off mid-command).
    Drop,
}

/// The service's end of a stream.
pub(crate) struct StreamIo {
    /// Our id.
    pub(crate) local: u32,
    /// The server's id.
    pub(crate) remote: u32,
    /// The largest `WRTE` payload.
    pub(crate) max_chunk: usize,
    pub(crate) out: UnboundedSender<Out>,
    /// One `()` per `OKAY` the server sent for our writes; ends when the stream closes.
    pub(crate) acks: UnboundedReceiver<()>,
    /// The payloads of the server's `WRTE`s; ends when the stream closes.
    pub(crate) input: UnboundedReceiver<Vec<u8>>,
}

impl StreamIo {
    /// Sends `data` in `WRTE`s, one in flight; false when the stream or connection closed.
    pub(crate) async fn write(&mut self, data: &[u8]) -> bool {
        for chunk in data.chunks(self.max_chunk) {
            let message = Message::new(A_WRTE, self.local, self.remote, chunk.to_vec());
            if self.out.send(Out::Message(message)).is_err() || self.acks.recv().await.is_none() {
                return false;
            }
        }
        true
    }

    /// The next payload the server wrote; `None` once the stream closed.
    pub(crate) async fn read(&mut self) -> Option<Vec<u8>> {
        self.input.recv().await
    }

    /// Closes the stream (`CLSE`).
    pub(crate) fn close(self) {
        let _ = self.out.send(Out::Message(Message::new(
            A_CLSE,
            self.local,
            self.remote,
            Vec::new(),
        )));
    }

    /// Drops the whole connection to the server.
    pub(crate) fn drop_connection(self) {
        let _ = self.out.send(Out::Drop);
    }
}
