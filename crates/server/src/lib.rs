//! deft serve: one HTTP listener for the device endpoint, the JSON API and (later) the console.
