//! The model-facing texts that the behaviour tests do not reach, verbatim.

use deft_backend_browser::texts;

#[test]
fn texts_are_stable() {
    assert_eq!(
        texts::window_gone(3),
        "Window 3 (a browser tab) was closed. Call get_desktop_app_info and select_application_window again."
    );
    assert_eq!(
        texts::unknown_window("9", &[]),
        "Window id '9' does not exist (there are no open tabs; open one with new_tab). Call get_desktop_app_info to refresh the list."
    );
    assert_eq!(
        texts::unknown_control("5", None),
        "Control id '5' is unknown (this window has not been listed yet). Call get_app_window_controls_info and use an id from it."
    );
    assert_eq!(
        texts::domain_blocked("ads.example"),
        "Opening ads.example is blocked by the browser's configuration (blocked_domains)."
    );
    assert_eq!(
        texts::browser_failed("Runtime.evaluate got no answer within 30 s"),
        "The browser did not complete the request: Runtime.evaluate got no answer within 30 s. Please retry or execute a different command."
    );
    assert_eq!(
        texts::dialog_open("prompt", "Your name?"),
        "A prompt dialog is open on this tab: \"Your name?\". Call handle_dialog(accept, text?) before doing anything else on the page."
    );
    assert_eq!(
        texts::NO_WINDOW,
        "No window selected. Call get_desktop_app_info and select_application_window first."
    );
    assert_eq!(
        texts::WAIT_CANCELLED,
        "wait_for_control was cancelled before the control appeared (or, with gone, went); nothing on the page was changed."
    );
    assert_eq!(
        texts::bad_button("back"),
        "Unknown mouse button 'back': use \"left\", \"right\" or \"middle\"."
    );
    assert_eq!(
        texts::upload_not_absolute("notes.txt"),
        "'notes.txt' is not an absolute path: give the file's full path, such as /tmp/report.pdf (one path per line for several files)."
    );
    assert_eq!(
        texts::upload_missing("/tmp/x.txt"),
        "'/tmp/x.txt' does not exist: check the path and give an existing file."
    );
    assert_eq!(
        texts::upload_not_a_file("/tmp"),
        "'/tmp' is not a file (it is a folder or a special file): give the path of a file."
    );
    assert_eq!(
        texts::upload_refused("/etc/passwd", &["/tmp".into(), "/srv/in".into()]),
        "'/etc/passwd' cannot be put into a file input: only files inside /tmp, /srv/in may be (the downloads folder, the system temp folder and the upload_dirs option). Use a file from one of them."
    );
}
