//! WebSocket close codes of the device link and what a client does on each.

/// The device token was refused (RFC 6455 policy violation); the client exits.
pub const TOKEN_REFUSED: u16 = 1008;
/// The registration was refused for good (empty or reserved id, first frame not `register`);
/// the client exits.
pub const REGISTRATION_REFUSED: u16 = 4001;
/// The id is already connected; the client retries with backoff (the old connection may be
/// on its way out).
pub const DUPLICATE_ID: u16 = 4009;
/// The device stayed silent past the limit.
pub const SILENT: u16 = 4008;
/// A frame exceeded the size limit.
pub const TOO_BIG: u16 = 1009;
/// A frame broke the WebSocket protocol (bad header bits, an unmasked client frame, bad UTF-8).
pub const PROTOCOL_ERROR: u16 = 1002;
/// The connection failed underneath (reset, I/O error): nothing can be sent any more; the code
/// is for the log only (RFC 6455 forbids sending it).
pub const ABNORMAL: u16 = 1006;
