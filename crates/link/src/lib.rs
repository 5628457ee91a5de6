//! deft's device link: the Remote dispatcher and the device client loop over WebSocket.
