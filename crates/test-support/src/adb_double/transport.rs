//! adbd's side of one connection from the adb server: the CNXN exchange (no AUTH; or, for an
//! `unauthorized` double, AUTH challenges and never a CNXN), then streams
//! by OPEN / OKAY / WRTE / CLSE — every server `WRTE` acked, a refused OPEN answered `CLSE`,
//! several streams at once, each served by its own task.

use std::collections::HashMap;
use std::sync::Arc;

use deft_adb::wire::header::{
    A_AUTH, A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_WRTE, HEADER_LEN, Header, MAX_PAYLOAD, Message,
    VERSION,
};
use parking_lot::Mutex;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc::{self, UnboundedReceiver, UnboundedSender};

use super::device::Device;
use super::services;
use super::stream::{Out, StreamIo};

/// The largest payload the double takes and sends (256 KiB, what phones announce).
const OUR_MAX_PAYLOAD: u32 = 256 * 1024;

/// `AUTH` types: the device's challenge, and the server's signature of it.
const AUTH_TOKEN: u32 = 1;
const AUTH_SIGNATURE: u32 = 2;
/// The 20-byte challenge the double asks the server to sign.
const AUTH_CHALLENGE: [u8; 20] = *b"deft-double-token-20";

/// The double's ends of its open streams, by our id.
struct Ends {
    remote: u32,
    acks: UnboundedSender<()>,
    input: UnboundedSender<Vec<u8>>,
}

/// A connection's state while its messages are read.
struct Connection {
    device: Arc<Mutex<Device>>,
    out: UnboundedSender<Out>,
    streams: HashMap<u32, Ends>,
    next_id: u32,
    max_payload: u32,
    connected: bool,
}

/// Serves one connection from the adb server until it closes.
pub(crate) async fn serve(tcp: TcpStream, device: Arc<Mutex<Device>>) {
    let _ = tcp.set_nodelay(true);
    let (mut reader, writer) = tcp.into_split();
    let (out, out_rx) = mpsc::unbounded_channel();
    let writer = tokio::spawn(write_loop(writer, out_rx));
    let mut connection = Connection {
        device,
        out,
        streams: HashMap::new(),
        next_id: 1,
        max_payload: OUR_MAX_PAYLOAD,
        connected: false,
    };
    while let Some(message) = read_message(&mut reader).await {
        connection.handle(message);
    }
    writer.abort();
}

impl Connection {
    fn send(&self, command: u32, arg0: u32, arg1: u32, payload: Vec<u8>) {
        let _ = self
            .out
            .send(Out::Message(Message::new(command, arg0, arg1, payload)));
    }

    fn handle(&mut self, message: Message) {
        if self.device.lock().config().unauthorized {
            return self.refuse_keys(&message);
        }
        if message.command == A_CNXN {
            self.connected = true;
            self.max_payload = message.arg1.min(OUR_MAX_PAYLOAD);
            let banner = self.device.lock().config().banner();
            return self.send(A_CNXN, VERSION, OUR_MAX_PAYLOAD, banner.into_bytes());
        }
        if !self.connected {
            return; // protocol.txt: anything before CNXN is ignored
        }
        match message.command {
            A_OPEN => self.open(message.arg0, &message.payload),
            A_OKAY => {
                if let Some(ends) = self.streams.get(&message.arg1) {
                    let _ = ends.acks.send(());
                }
            }
            A_WRTE => {
                if let Some(ends) = self.streams.get(&message.arg1) {
                    let _ = ends.input.send(message.payload);
                    self.send(A_OKAY, message.arg1, ends.remote, Vec::new());
                }
            }
            A_CLSE => {
                self.streams.remove(&message.arg1);
            }
            _ => {}
        }
    }

    /// Asks for a signature on CNXN and again after each one the server sends, never
    /// accepting: once the server has tried its keys it offers its public key (`AUTH` type 3),
    /// which nobody accepts either.
    fn refuse_keys(&self, message: &Message) {
        let ask = message.command == A_CNXN
            || message.command == A_AUTH && message.arg0 == AUTH_SIGNATURE;
        if ask {
            self.send(A_AUTH, AUTH_TOKEN, 0, AUTH_CHALLENGE.to_vec());
        }
    }

    fn open(&mut self, remote: u32, payload: &[u8]) {
        let name =
            String::from_utf8_lossy(payload.strip_suffix(b"\0").unwrap_or(payload)).into_owned();
        let shell_v2 = self.device.lock().config().shell_v2;
        let Some(service) = services::parse(&name, shell_v2) else {
            self.device.lock().commands.push(name);
            return self.send(A_CLSE, 0, remote, Vec::new());
        };
        let local = self.next_id;
        self.next_id += 1;
        let (acks_tx, acks) = mpsc::unbounded_channel();
        let (input_tx, input) = mpsc::unbounded_channel();
        self.streams.insert(
            local,
            Ends {
                remote,
                acks: acks_tx,
                input: input_tx,
            },
        );
        self.send(A_OKAY, local, remote, Vec::new());
        let io = StreamIo {
            local,
            remote,
            max_chunk: self.max_payload as usize,
            out: self.out.clone(),
            acks,
            input,
        };
        tokio::spawn(services::serve(service, io, self.device.clone()));
    }
}

/// The next message; `None` at the end of the connection or on a malformed header.
async fn read_message(reader: &mut OwnedReadHalf) -> Option<Message> {
    let mut bytes = [0u8; HEADER_LEN];
    reader.read_exact(&mut bytes).await.ok()?;
    let header = Header::decode(&bytes, MAX_PAYLOAD).ok()?;
    let mut payload = vec![0u8; header.length as usize];
    reader.read_exact(&mut payload).await.ok()?;
    Some(Message::new(
        header.command,
        header.arg0,
        header.arg1,
        payload,
    ))
}

/// Writes the messages of every stream, in order, until told to drop the connection.
async fn write_loop(mut writer: OwnedWriteHalf, mut out: UnboundedReceiver<Out>) {
    while let Some(item) = out.recv().await {
        match item {
            Out::Message(message) => {
                if writer.write_all(&message.encode()).await.is_err() {
                    return;
                }
            }
            Out::Drop => {
                let _ = writer.shutdown().await;
                return;
            }
        }
    }
}
