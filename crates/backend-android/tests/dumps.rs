//! Real `uiautomator dump`s (crates/test-support/fixtures/android, provenance in SOURCES.md)
//! read into trees and listed as controls: the dialects, Chinese labels, list rows, forms,
//! disabled buttons, clipped edges and opaque screens.

use deft_backend_android::controls::controls;
use deft_backend_android::ui_tree::{UiScreen, parse_dump};
use deft_protocol::observation::{Control, ControlType, StateFlag};

fn fixture(name: &str) -> UiScreen {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../test-support/fixtures/android")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_dump(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn listed(name: &str) -> Vec<Control> {
    let mut n = 0;
    controls(&fixture(name), |_| {
        n += 1;
        n.to_string()
    })
}

fn named<'a>(list: &'a [Control], name: &str) -> &'a Control {
    list.iter().find(|c| c.name == name).unwrap_or_else(|| {
        panic!(
            "no control {name:?} in {:?}",
            list.iter().map(|c| &c.name).collect::<Vec<_>>()
        )
    })
}

#[test]
fn every_fixture_reads_and_lists() {
    for name in [
        "form-multiwindow-androidx.xml",
        "form-textfield-flutter.xml",
        "game-landscape-opaque.xml",
        "keypad-pin-flutter.xml",
        "launcher-aosp-legacy.xml",
        "launcher-miui-chinese.xml",
        "recents-systemui-chinese.xml",
        "settings-android14.xml",
    ] {
        let screen = fixture(name);
        assert!(!screen.nodes().is_empty(), "{name}");
        for c in listed(name) {
            let [l, t, r, b] = c.rect.expect("every listed control has a rect");
            assert!(r > l && b > t, "{name}: {} has no area", c.name);
        }
    }
}

#[test]
fn settings_rows_are_named_by_their_title_and_a_clipped_title_is_left_out() {
    let list = listed("settings-android14.xml");
    let network = named(&list, "Network and Internet");
    assert!(network.interactive);
    assert_eq!(network.kind, ControlType::Listitem);
    assert_eq!(
        network.extra["text"],
        "Network and Internet · Mobile, Wi\u{2011}Fi, hotspot"
    );
    let title = list
        .iter()
        .find(|c| c.name == "Network and Internet" && !c.interactive)
        .expect("the row's title is its row text");
    assert!(title.row_text);
    // The last row shows 21 px of itself (tappable there); its title is clipped to a box with
    // no height, which nothing can tap, so only the row is listed.
    let storage: Vec<&Control> = list.iter().filter(|c| c.name == "Storage").collect();
    assert_eq!(storage.len(), 1, "{storage:?}");
    assert_eq!(storage[0].rect, Some([0, 2162, 1008, 2183]));
    assert_eq!(
        fixture("settings-android14.xml").package(),
        Some("com.android.settings")
    );
}

#[test]
fn a_form_has_its_field_value_hint_and_disabled_button() {
    let list = listed("form-textfield-flutter.xml");
    let field = list
        .iter()
        .find(|c| c.kind == ControlType::Edit)
        .expect("the account number field");
    assert_eq!(field.name, "TESTBANK Account Number");
    assert_eq!(field.value.as_deref(), Some("9999999999"));
    assert!(field.states.contains(&StateFlag::Focused));
    let go_on = named(&list, "Continue");
    assert_eq!(go_on.kind, ControlType::Button);
    assert!(go_on.states.contains(&StateFlag::Disabled));
    assert_eq!(named(&list, "Step 1 of 3").kind, ControlType::Text);
}

#[test]
fn a_keypad_is_ten_digits_and_delete_from_their_descriptions() {
    let list = listed("keypad-pin-flutter.xml");
    for key in ["0", "1", "5", "9", "DEL"] {
        let c = named(&list, key);
        assert_eq!(c.kind, ControlType::Button);
        assert!(c.interactive);
    }
}

#[test]
fn chinese_labels_and_landscape_screens_read_as_they_are() {
    let list = listed("launcher-miui-chinese.xml");
    assert!(
        list.iter().any(|c| c.name == "短信"),
        "{:?}",
        list.iter().map(|c| &c.name).collect::<Vec<_>>()
    );
    let game = fixture("game-landscape-opaque.xml");
    assert_eq!(game.rotation, 1);
    assert!(
        listed("game-landscape-opaque.xml")
            .iter()
            .all(|c| !c.interactive)
    );
}
