//! deft's run traces: trace.jsonl, image files and report.html from the event stream.
