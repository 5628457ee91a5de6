//! deft's browser tool server: Chromium over CDP, compact observations, event-driven settling.
