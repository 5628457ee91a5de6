//! The control listing every UI backend returns and the agent shows the model: the one renderer of
//! `docs/observation.md`. Pure data, no I/O.
//!
//! A backend collects a window's controls into [`Control`]s (ids, [`ControlType`] from the fixed
//! vocabulary, [`StateFlag`]s), then calls [`render_compact`] (the default, one line per control)
//! or [`render_json`] (`format: "json"`) with the model's [`ListingOptions`]. Everything the spec
//! says about escaping, truncation, the new-control marker, budgets and footers happens here, so
//! the desktop and the browser cannot drift apart.
//!
//! ```
//! use deft_protocol::observation::*;
//! let window = WindowSummary::new("4", "Save Changes", WindowType::Dialog, "mousepad");
//! let mut save = Control::new("21", ControlType::Button, "Save");
//! save.states.insert(StateFlag::Focused);
//! let listing = render_compact(&window, &[save], &ListingOptions::default());
//! assert_eq!(
//!     listing,
//!     "dialog 4 \"Save Changes\" app=\"mousepad\" controls=1 interactive=1 new=0\n21 button \"Save\" focused\n"
//! );
//! ```

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value, json};

use crate::lenient::null_default;

/// Longest name, value or string field printed, in characters (Unicode scalar values). Longer
/// strings keep their first `MAX_TEXT_CHARS - 1` characters and end in [`ELLIPSIS`].
pub const MAX_TEXT_CHARS: usize = 80;

/// The character that ends a truncated string (U+2026).
pub const ELLIPSIS: char = '…';

/// `max_controls` when the caller gives none.
pub const DEFAULT_MAX_CONTROLS: usize = 1000;

/// The `field_list` entry that adds rects.
pub const FIELD_RECT: &str = "rect";

/// The `field_list` entry that lists row text (and adds the `text` extra where a backend has it).
pub const FIELD_TEXT: &str = "text";

macro_rules! vocabulary {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $word:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $word)] $variant,)*
        }

        impl $name {
            /// Every word of the vocabulary, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The word printed in listings.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $word,)*
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($word => Ok($name::$variant),)*
                    other => Err(format!(
                        "unknown {} '{other}': expected one of {}",
                        stringify!($name),
                        [$($word),*].join(", ")
                    )),
                }
            }
        }
    };
}

vocabulary! {
    /// The fixed control-type vocabulary of docs/observation.md ("Control types"). Backends map
    /// AT-SPI roles ([`ControlType::from_atspi_role`]) and ARIA/Chromium roles
    /// ([`ControlType::from_aria_role`]) onto it; anything unmapped is [`ControlType::Other`].
    ControlType {
        /// A push or toggle button.
        Button => "button",
        /// A text input, single- or multi-line.
        Edit => "edit",
        /// Static text or a label.
        Text => "text",
        /// A check box or switch.
        Checkbox => "checkbox",
        /// A radio button.
        Radio => "radio",
        /// A drop-down choice (combo box, `<select>`).
        Combobox => "combobox",
        /// A list or list box.
        List => "list",
        /// An item of a list (or an option of a list box or combo box).
        Listitem => "listitem",
        /// A menu (popup).
        Menu => "menu",
        /// A menu entry.
        Menuitem => "menuitem",
        /// A menu bar.
        Menubar => "menubar",
        /// A tab strip (the container of `tabitem`s).
        Tab => "tab",
        /// One tab of a tab strip.
        Tabitem => "tabitem",
        /// A hyperlink.
        Link => "link",
        /// A slider or dial.
        Slider => "slider",
        /// A spin button.
        Spinner => "spinner",
        /// A progress bar, level bar or meter.
        Progressbar => "progressbar",
        /// A scroll bar.
        Scrollbar => "scrollbar",
        /// A tree or tree table.
        Tree => "tree",
        /// An item of a tree.
        Treeitem => "treeitem",
        /// A table or grid.
        Table => "table",
        /// A table row.
        Row => "row",
        /// A table cell (row headers included).
        Cell => "cell",
        /// A column header.
        Columnheader => "columnheader",
        /// An image or icon.
        Image => "image",
        /// A tool bar.
        Toolbar => "toolbar",
        /// A status bar.
        Statusbar => "statusbar",
        /// A dialog or alert box.
        Dialog => "dialog",
        /// A top-level window or frame.
        Window => "window",
        /// A grouping container (panel, section, form, landmark).
        Group => "group",
        /// A heading.
        Heading => "heading",
        /// A document: a web page's root, a text document, a terminal.
        Document => "document",
        /// Anything the vocabulary has no word for; `field_list: ["role"]` shows the raw role.
        #[serde(other)]
        Other => "other",
    }
}

vocabulary! {
    /// The state flags of docs/observation.md ("State flags"). Enabled, visible and unchecked are
    /// the defaults and have no flag. A [`BTreeSet`] of flags prints in declaration order.
    StateFlag {
        /// Not enabled / not sensitive: actions on it fail.
        Disabled => "disabled",
        /// Has keyboard focus.
        Focused => "focused",
        /// Checked, pressed (toggle button) or on (switch).
        Checked => "checked",
        /// Tri-state check box in the mixed state.
        Mixed => "mixed",
        /// Selected (list item, tab item, tree item, row, option).
        Selected => "selected",
        /// Expandable and expanded (open combo box, menu, tree item).
        Expanded => "expanded",
        /// Expandable and collapsed.
        Collapsed => "collapsed",
        /// Editable type that cannot be edited now.
        Readonly => "readonly",
        /// Input the form requires.
        Required => "required",
        /// Input whose value is invalid.
        Invalid => "invalid",
        /// Outside the visible area, and the action tools will not scroll to it by themselves.
        Offscreen => "offscreen",
    }
}

impl ControlType {
    /// The type for an AT-SPI role, given as the numeric `AtspiRole` value (never the localized
    /// role name). Unknown values give [`ControlType::Other`].
    pub fn from_atspi_role(role: u32) -> Self {
        use ControlType::*;
        match role {
            // ARROW, PUSH_BUTTON, TOGGLE_BUTTON, PUSH_BUTTON_MENU
            4 | 43 | 62 | 129 => Button,
            // CHECK_BOX, SWITCH
            7 | 130 => Checkbox,
            // RADIO_BUTTON
            44 => Radio,
            // COMBO_BOX
            11 => Combobox,
            // DATE_EDITOR, PASSWORD_TEXT, TEXT, AUTOCOMPLETE, EDITBAR, ENTRY
            12 | 40 | 61 | 76 | 77 | 79 => Edit,
            // LIST, LIST_BOX, DESCRIPTION_LIST
            31 | 98 | 121 => List,
            // LIST_ITEM
            32 => Listitem,
            // MENU, POPUP_MENU
            33 | 41 => Menu,
            // MENU_BAR
            34 => Menubar,
            // CHECK_MENU_ITEM, MENU_ITEM, RADIO_MENU_ITEM, TEAROFF_MENU_ITEM
            8 | 35 | 45 | 59 => Menuitem,
            // PAGE_TAB_LIST
            38 => Tab,
            // PAGE_TAB
            37 => Tabitem,
            // LINK
            88 => Link,
            // DIAL, SLIDER
            15 | 51 => Slider,
            // SPIN_BUTTON
            52 => Spinner,
            // PROGRESS_BAR, LEVEL_BAR
            42 | 103 => Progressbar,
            // SCROLL_BAR
            48 => Scrollbar,
            // TREE, TREE_TABLE
            65 | 66 => Tree,
            // TREE_ITEM
            91 => Treeitem,
            // TABLE
            55 => Table,
            // TABLE_ROW
            90 => Row,
            // ROW_HEADER, TABLE_CELL, TABLE_ROW_HEADER
            47 | 56 | 58 => Cell,
            // COLUMN_HEADER, TABLE_COLUMN_HEADER
            10 | 57 => Columnheader,
            // ANIMATION, DESKTOP_ICON, ICON, IMAGE, IMAGE_MAP
            3 | 13 | 26 | 27 | 100 => Image,
            // TOOL_BAR
            63 => Toolbar,
            // STATUS_BAR
            54 => Statusbar,
            // ALERT, COLOR_CHOOSER, DIALOG, FILE_CHOOSER, FONT_CHOOSER, OPTION_PANE
            2 | 9 | 16 | 19 | 22 | 36 => Dialog,
            // DESKTOP_FRAME, FRAME, INTERNAL_FRAME, WINDOW
            14 | 23 | 28 | 69 => Window,
            // HEADING
            83 => Heading,
            // ACCELERATOR_LABEL, LABEL, TOOL_TIP, PARAGRAPH, CAPTION, COMMENT, NOTIFICATION,
            // BLOCK_QUOTE, DEFINITION, LOG, MARQUEE, TIMER, STATIC, DESCRIPTION_TERM,
            // DESCRIPTION_VALUE, FOOTNOTE, MARK
            1 | 29 | 64 | 73 | 81 | 97 | 101 | 105 | 108 | 111 | 112 | 115 | 116 | 122 | 123
            | 124 | 127 => Text,
            // TERMINAL, DOCUMENT_FRAME, PAGE, DOCUMENT_SPREADSHEET … DOCUMENT_EMAIL
            60 | 82 | 84 | 92..=96 => Document,
            // CALENDAR, DIRECTORY_PANE, FILLER, GLASS_PANE, HTML_CONTAINER, LAYERED_PANE, PANEL,
            // ROOT_PANE, SCROLL_PANE, SPLIT_PANE, VIEWPORT, HEADER, FOOTER, APPLICATION, EMBEDDED,
            // SECTION, FORM, GROUPING, INFO_BAR, ARTICLE, LANDMARK
            5 | 17 | 20 | 24 | 25 | 30 | 39 | 46 | 49 | 53 | 68 | 71 | 72 | 75 | 78 | 85 | 87
            | 99 | 102 | 109 | 110 => Group,
            _ => Other,
        }
    }

    /// The type for a role of the browser's accessibility tree: an ARIA role (`button`,
    /// `textbox`, `gridcell`, …) or a Chromium internal role (`StaticText`, `RootWebArea`,
    /// `LayoutTableCell`, …). Case and `-`/`_` are ignored. Unknown roles give
    /// [`ControlType::Other`].
    pub fn from_aria_role(role: &str) -> Self {
        use ControlType::*;
        let key: String = role
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .collect();
        match key.as_str() {
            "button" | "togglebutton" | "disclosuretriangle" | "colorwell" | "color" => Button,
            "textbox"
            | "searchbox"
            | "textfield"
            | "textfieldwithcombobox"
            | "date"
            | "datetime"
            | "inputtime" => Edit,
            "checkbox" | "switch" => Checkbox,
            "radio" => Radio,
            "combobox" | "comboboxselect" | "comboboxgrouping" | "comboboxmenubutton"
            | "popupbutton" => Combobox,
            "list" | "listbox" | "menulistpopup" | "descriptionlist" | "directory" => List,
            "listitem" | "option" | "menulistoption" | "listboxoption" => Listitem,
            "menu" => Menu,
            "menubar" => Menubar,
            "menuitem" | "menuitemcheckbox" | "menuitemradio" => Menuitem,
            "tablist" => Tab,
            "tab" => Tabitem,
            "link" => Link,
            "slider" => Slider,
            "spinbutton" => Spinner,
            "progressbar" | "meter" => Progressbar,
            "scrollbar" => Scrollbar,
            "tree" | "treegrid" => Tree,
            "treeitem" => Treeitem,
            "table" | "grid" | "layouttable" => Table,
            "row" | "layouttablerow" => Row,
            "cell" | "gridcell" | "rowheader" | "layouttablecell" => Cell,
            "columnheader" => Columnheader,
            "image" | "img" | "graphicssymbol" | "svgroot" | "imagemap" => Image,
            "toolbar" => Toolbar,
            "status" => Statusbar,
            "dialog" | "alertdialog" => Dialog,
            "window" => Window,
            "heading" => Heading,
            "statictext" | "labeltext" | "paragraph" | "text" | "legend" | "caption" | "term"
            | "definition" | "note" | "tooltip" | "alert" | "log" | "marquee" | "timer"
            | "blockquote" | "code" | "emphasis" | "strong" | "mark" | "time" | "abbr" | "pre"
            | "contentdeletion" | "contentinsertion" | "subscript" | "superscript" => Text,
            "rootwebarea" | "webarea" | "document" | "graphicsdocument" | "pdfroot" => Document,
            "generic"
            | "group"
            | "section"
            | "region"
            | "form"
            | "search"
            | "navigation"
            | "main"
            | "banner"
            | "contentinfo"
            | "complementary"
            | "article"
            | "application"
            | "figure"
            | "tabpanel"
            | "details"
            | "iframe"
            | "iframepresentational"
            | "header"
            | "footer"
            | "sectionheader"
            | "sectionfooter"
            | "feed"
            | "radiogroup"
            | "graphicsobject" => Group,
            _ => Other,
        }
    }
}

impl ControlType {
    /// The type for an Android view class as `uiautomator dump` names it
    /// (`android.widget.Button`, `androidx.recyclerview.widget.RecyclerView`,
    /// `com.google.android.material.tabs.TabLayout$TabView`, …): its simple name decides, so
    /// support-library and Material subclasses map like their framework bases. Unknown classes
    /// give [`ControlType::Other`]; layout containers give [`ControlType::Group`].
    pub fn from_android_class(class: &str) -> Self {
        use ControlType::*;
        let simple = class.rsplit(['.', '$']).next().unwrap_or(class);
        match simple {
            "Button"
            | "ImageButton"
            | "MaterialButton"
            | "FloatingActionButton"
            | "ExtendedFloatingActionButton"
            | "AppCompatButton"
            | "AppCompatImageButton"
            | "Chip" => Button,
            "EditText"
            | "AutoCompleteTextView"
            | "MultiAutoCompleteTextView"
            | "TextInputEditText"
            | "AppCompatEditText"
            | "SearchAutoComplete" => Edit,
            "CheckBox" | "Switch" | "SwitchCompat" | "SwitchMaterial" | "MaterialSwitch"
            | "ToggleButton" | "CheckedTextView" | "AppCompatCheckBox" | "MaterialCheckBox" => {
                Checkbox
            }
            "RadioButton" | "AppCompatRadioButton" | "MaterialRadioButton" => Radio,
            "Spinner" | "AppCompatSpinner" => Combobox,
            "ListView" | "RecyclerView" | "GridView" | "ExpandableListView" => List,
            "TabWidget" | "TabLayout" => Tab,
            "TabView" => Tabitem,
            "SeekBar" | "RatingBar" | "Slider" | "AppCompatSeekBar" => Slider,
            "NumberPicker" => Spinner,
            "ProgressBar"
            | "ContentLoadingProgressBar"
            | "LinearProgressIndicator"
            | "CircularProgressIndicator" => Progressbar,
            "ImageView" | "AppCompatImageView" | "ShapeableImageView" => Image,
            "Toolbar" | "ActionBar" | "ActionMenuView" => Toolbar,
            "TextView" | "AppCompatTextView" | "MaterialTextView" | "TextClock" | "Chronometer" => {
                Text
            }
            "WebView" => Document,
            "FrameLayout"
            | "LinearLayout"
            | "RelativeLayout"
            | "ConstraintLayout"
            | "CoordinatorLayout"
            | "ViewGroup"
            | "View"
            | "ScrollView"
            | "HorizontalScrollView"
            | "NestedScrollView"
            | "ViewPager"
            | "ViewPager2"
            | "DrawerLayout"
            | "CardView"
            | "MaterialCardView"
            | "AppBarLayout"
            | "GridLayout"
            | "TableLayout"
            | "RadioGroup"
            | "ViewAnimator"
            | "ViewFlipper"
            | "ViewSwitcher"
            | "SwipeRefreshLayout" => Group,
            "TableRow" => Row,
            _ => Other,
        }
    }
}

/// The kind of a window in `get_desktop_app_info` and in a listing's header.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WindowType {
    /// A top-level application window.
    #[default]
    Window,
    /// A dialog or alert window.
    Dialog,
    /// A browser tab.
    Page,
}

impl WindowType {
    /// The word printed in listings: `window`, `dialog` or `page`.
    pub fn as_str(self) -> &'static str {
        match self {
            WindowType::Window => "window",
            WindowType::Dialog => "dialog",
            WindowType::Page => "page",
        }
    }
}

/// One window (desktop) or tab (browser), as `get_desktop_app_info` lists it and a listing's
/// header names it. Serialized as `{id, name, type, app}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowSummary {
    /// Window id: a decimal string, unique in the device session and never reused in it.
    pub id: String,
    /// Window title (page title for a tab).
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// `window`, `dialog` or `page`.
    #[serde(rename = "type", default, deserialize_with = "null_default")]
    pub kind: WindowType,
    /// The root name (docs/design.md "root and process"): executable basename, or the page's host.
    #[serde(default, deserialize_with = "null_default")]
    pub app: String,
}

impl WindowSummary {
    /// A window summary.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        kind: WindowType,
        app: impl Into<String>,
    ) -> Self {
        WindowSummary {
            id: id.into(),
            name: name.into(),
            kind,
            app: app.into(),
        }
    }

    /// The JSON object of this window as listings and `get_desktop_app_info` show it: the name
    /// normalized and truncated like a control name.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": clean_name(&self.name),
            "type": self.kind.as_str(),
            "app": self.app,
        })
    }
}

/// The `get_desktop_app_info` result: a JSON array of `{id, name, type, app}`, names cleaned.
pub fn render_window_list(windows: &[WindowSummary]) -> Value {
    Value::Array(windows.iter().map(WindowSummary::to_json).collect())
}

/// The parameters of `get_desktop_app_info`, parsed leniently from the tool arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowListOptions {
    /// Leave out windows with an empty title. Default true.
    #[serde(default = "default_true", deserialize_with = "true_if_null")]
    pub remove_empty: bool,
    /// Enumerate the windows again; false returns the list of the previous call. Default true.
    #[serde(default = "default_true", deserialize_with = "true_if_null")]
    pub refresh_app_windows: bool,
}

impl Default for WindowListOptions {
    fn default() -> Self {
        WindowListOptions {
            remove_empty: true,
            refresh_app_windows: true,
        }
    }
}

fn default_true() -> bool {
    true
}

fn true_if_null<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Option::<bool>::deserialize(d)?.unwrap_or(true))
}

/// One control of a window, as a backend collected it. The renderer prints it; it never looks
/// anything up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Control {
    /// Control id: a decimal string, unique in the device session, kept while the control exists,
    /// never reused.
    pub id: String,
    /// Type from the fixed vocabulary.
    #[serde(
        rename = "type",
        default = "default_other",
        deserialize_with = "other_if_null"
    )]
    pub kind: ControlType,
    /// Accessible name (raw; the renderer collapses whitespace and truncates).
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// Current value: text of an edit, selected option of a combo box, position of a slider.
    /// `None` for controls without one; edits always have one (maybe `""`).
    #[serde(default)]
    pub value: Option<String>,
    /// State flags; enabled, visible and unchecked have none.
    #[serde(default, deserialize_with = "lenient_states")]
    pub states: BTreeSet<StateFlag>,
    /// `[left, top, right, bottom]` in screen pixels, when the backend knows it.
    #[serde(default)]
    pub rect: Option<[i32; 4]>,
    /// Not in the previous listing of the same window (never set on a window's first listing).
    #[serde(rename = "new", default, deserialize_with = "null_default")]
    pub is_new: bool,
    /// A control action can operate it (click, type, toggle, select, focus).
    #[serde(default, deserialize_with = "null_default")]
    pub interactive: bool,
    /// Row text: non-interactive text inside a row or item that holds an interactive control.
    /// Left out of listings unless `field_list` contains `text`. Ignored on interactive controls.
    #[serde(default, deserialize_with = "null_default")]
    pub row_text: bool,
    /// Optional fields (`description`, `url`, `role`, `text`, …), printed only when `field_list`
    /// names them.
    #[serde(default, deserialize_with = "null_default")]
    pub extra: Map<String, Value>,
}

fn default_other() -> ControlType {
    ControlType::Other
}

fn other_if_null<'de, D: Deserializer<'de>>(d: D) -> Result<ControlType, D::Error> {
    Ok(Option::<ControlType>::deserialize(d)?.unwrap_or(ControlType::Other))
}

/// States on input: a list of words; unknown words are dropped, `null` is the empty set.
fn lenient_states<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeSet<StateFlag>, D::Error> {
    let words: Vec<Value> = null_default(d)?;
    Ok(words
        .iter()
        .filter_map(|w| w.as_str()?.parse().ok())
        .collect())
}

impl Control {
    /// A control with no value, no states, no rect, not new. `interactive` is true for the
    /// types that are widgets by nature (see [`ControlType::is_widget`]); set it for others.
    pub fn new(id: impl Into<String>, kind: ControlType, name: impl Into<String>) -> Self {
        Control {
            id: id.into(),
            kind,
            name: name.into(),
            value: None,
            states: BTreeSet::new(),
            rect: None,
            is_new: false,
            interactive: kind.is_widget(),
            row_text: false,
            extra: Map::new(),
        }
    }

    /// Builder: sets the value.
    pub fn with_value(mut self, value: impl Into<String>) -> Self {
        self.value = Some(value.into());
        self
    }

    /// Builder: adds state flags.
    pub fn with_states(mut self, states: impl IntoIterator<Item = StateFlag>) -> Self {
        self.states.extend(states);
        self
    }

    /// Builder: marks the control new since the previous listing.
    pub fn new_since_last(mut self) -> Self {
        self.is_new = true;
        self
    }

    /// Builder: sets the rect `[left, top, right, bottom]`.
    pub fn with_rect(mut self, rect: [i32; 4]) -> Self {
        self.rect = Some(rect);
        self
    }

    /// Builder: marks the control as row text (see [`Control::row_text`]).
    pub fn as_row_text(mut self) -> Self {
        self.row_text = true;
        self.interactive = false;
        self
    }

    /// Builder: sets `interactive`.
    pub fn with_interactive(mut self, interactive: bool) -> Self {
        self.interactive = interactive;
        self
    }

    /// Builder: adds an optional field.
    pub fn with_extra(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.extra.insert(key.into(), value.into());
        self
    }

    fn folded_as_row_text(&self) -> bool {
        self.row_text && !self.interactive
    }
}

impl ControlType {
    /// Whether controls of this type are interactive by nature (button, edit, checkbox, radio,
    /// combobox, listitem, menuitem, tabitem, link, slider, spinner, scrollbar, treeitem). A
    /// backend still decides per control: a focusable `cell` is interactive, a plain HTML list
    /// item is not.
    pub fn is_widget(self) -> bool {
        use ControlType::*;
        matches!(
            self,
            Button
                | Edit
                | Checkbox
                | Radio
                | Combobox
                | Listitem
                | Menuitem
                | Tabitem
                | Link
                | Slider
                | Spinner
                | Scrollbar
                | Treeitem
        )
    }
}

/// Compact text (the default) or JSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ListingFormat {
    /// One line per control (docs/observation.md "Compact listing").
    #[default]
    Compact,
    /// The JSON object of docs/observation.md "JSON form".
    Json,
}

/// The model's narrowing parameters of `get_app_window_controls_info`, parsed leniently from the
/// tool arguments (`null` = default).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListingOptions {
    /// Optional fields to add: `rect`, `text`, or any optional field name a backend offers.
    /// UFO's `control_rect` and `control_class` are accepted for `rect` and `class`; UFO names of
    /// default fields are ignored. A single comma-separated string is accepted too.
    #[serde(default, deserialize_with = "lenient_field_list")]
    pub field_list: Vec<String>,
    /// List interactive controls only. Default false.
    #[serde(default, deserialize_with = "null_default")]
    pub only_interactive: bool,
    /// Most control lines to print. Default [`DEFAULT_MAX_CONTROLS`].
    #[serde(
        default = "default_max_controls",
        deserialize_with = "max_controls_lenient"
    )]
    pub max_controls: usize,
    /// `compact` (default) or `json`; case is ignored.
    #[serde(default, deserialize_with = "lenient_format")]
    pub format: ListingFormat,
    /// List only this control and its descendants (a control id from an earlier listing of the
    /// same window); the backend narrows the controls before rendering, and the header counts
    /// what it found in that subtree. Numbers are accepted for ids.
    #[serde(default, deserialize_with = "lenient_id")]
    pub subtree: Option<String>,
    /// List only what changed since the window's previous listing (docs/observation.md "What
    /// changed"): new, changed and gone controls, the unchanged counted. Default false.
    #[serde(default, deserialize_with = "null_default")]
    pub changes: bool,
}

/// An optional id given as a string or a number; `null` and `""` mean none.
fn lenient_id<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Option::<serde_json::Value>::deserialize(d)? {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(serde_json::Value::String(s)) => Ok(Some(s.trim().to_owned())),
        Some(serde_json::Value::Number(n)) if n.is_u64() => Ok(Some(n.to_string())),
        Some(other) => Err(serde::de::Error::custom(format!(
            "subtree must be a control id such as \"7\", got {other}"
        ))),
    }
}

impl Default for ListingOptions {
    fn default() -> Self {
        ListingOptions {
            field_list: Vec::new(),
            only_interactive: false,
            max_controls: DEFAULT_MAX_CONTROLS,
            format: ListingFormat::Compact,
            subtree: None,
            changes: false,
        }
    }
}

fn default_max_controls() -> usize {
    DEFAULT_MAX_CONTROLS
}

fn max_controls_lenient<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    Ok(Option::<usize>::deserialize(d)?.unwrap_or(DEFAULT_MAX_CONTROLS))
}

fn lenient_format<'de, D: Deserializer<'de>>(d: D) -> Result<ListingFormat, D::Error> {
    match Option::<String>::deserialize(d)?
        .map(|s| s.trim().to_ascii_lowercase())
        .as_deref()
    {
        None | Some("" | "compact" | "text") => Ok(ListingFormat::Compact),
        Some("json") => Ok(ListingFormat::Json),
        Some(other) => Err(serde::de::Error::custom(format!(
            "unknown format '{other}': expected \"compact\" (the default) or \"json\""
        ))),
    }
}

fn lenient_field_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Option::<OneOrMany>::deserialize(d)? {
        None => Vec::new(),
        Some(OneOrMany::One(s)) => s.split(',').map(str::to_owned).collect(),
        Some(OneOrMany::Many(v)) => v,
    })
}

impl ListingOptions {
    /// The optional fields asked for, normalized (trimmed, lowercase, UFO aliases resolved,
    /// default fields and duplicates dropped), in the order given.
    pub fn fields(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for raw in &self.field_list {
            let f = raw.trim().to_ascii_lowercase();
            let f = match f.as_str() {
                "control_rect" => FIELD_RECT.to_owned(),
                "control_class" => "class".to_owned(),
                "" | "id" | "type" | "name" | "value" | "states" | "control_id"
                | "control_type" | "control_name" | "control_text" | "control_title" | "label"
                | "selected" | "source" => continue,
                _ => f,
            };
            if !out.contains(&f) {
                out.push(f);
            }
        }
        out
    }

    fn wants(&self, fields: &[String], field: &str) -> bool {
        fields.iter().any(|f| f == field)
    }
}

/// Why controls were left out of a listing; each reason is one footer line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OmitReason {
    /// Non-interactive controls, because `only_interactive` was true.
    OnlyInteractive,
    /// Row text, because `field_list` did not contain `text`.
    RowText,
    /// Controls past `max_controls`.
    MaxControls,
}

/// A group of controls left out of a listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Omitted {
    /// Why.
    pub reason: OmitReason,
    /// How many controls.
    pub count: usize,
    /// How many of them are interactive.
    pub interactive: usize,
    /// The footer sentence the compact form prints after `… `: what was left out and how to see it.
    pub note: String,
}

/// What a listing shows, before formatting: counts, the listed controls, the omissions.
pub(crate) struct Plan<'a> {
    pub(crate) fields: Vec<String>,
    pub(crate) total: usize,
    pub(crate) interactive: usize,
    pub(crate) new: usize,
    pub(crate) listed: Vec<&'a Control>,
    pub(crate) omitted: Vec<Omitted>,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

pub(crate) fn plan<'a>(controls: &'a [Control], opts: &ListingOptions) -> Plan<'a> {
    let fields = opts.fields();
    let want_text = opts.wants(&fields, FIELD_TEXT);
    let mut listed = Vec::new();
    let (mut non_interactive, mut row_text) = (0usize, 0usize);
    let (mut cut, mut cut_interactive) = (0usize, 0usize);
    for c in controls {
        if opts.only_interactive && !c.interactive {
            non_interactive += 1;
        } else if c.folded_as_row_text() && !want_text {
            row_text += 1;
        } else if listed.len() >= opts.max_controls {
            cut += 1;
            cut_interactive += usize::from(c.interactive);
        } else {
            listed.push(c);
        }
    }

    let mut omitted = Vec::new();
    if non_interactive > 0 {
        omitted.push(Omitted {
            reason: OmitReason::OnlyInteractive,
            count: non_interactive,
            interactive: 0,
            note: format!(
                "{} not listed (only_interactive=true).",
                plural(
                    non_interactive,
                    "non-interactive control",
                    "non-interactive controls"
                )
            ),
        });
    }
    if row_text > 0 {
        omitted.push(Omitted {
            reason: OmitReason::RowText,
            count: row_text,
            interactive: 0,
            note: format!(
                "{} not listed; add \"text\" to field_list to list them.",
                plural(row_text, "row text", "row texts")
            ),
        });
    }
    if cut > 0 {
        let after = match listed.last() {
            Some(c) => format!("after id {}", c.id),
            None => "before the first control".to_owned(),
        };
        let narrow = if opts.only_interactive {
            String::new()
        } else {
            " or only_interactive=true".to_owned()
        };
        omitted.push(Omitted {
            reason: OmitReason::MaxControls,
            count: cut,
            interactive: cut_interactive,
            note: format!(
                "{} ({cut_interactive} interactive) not listed: max_controls={} reached {after}. \
                 Ask again with max_controls={}{narrow}.",
                plural(cut, "more control", "more controls"),
                opts.max_controls,
                listed.len() + cut,
            ),
        });
    }

    Plan {
        fields,
        total: controls.len(),
        interactive: controls.iter().filter(|c| c.interactive).count(),
        new: controls.iter().filter(|c| c.is_new).count(),
        listed,
        omitted,
    }
}

/// Truncates `s` to [`MAX_TEXT_CHARS`] characters: the first `MAX_TEXT_CHARS - 1` and [`ELLIPSIS`].
pub fn truncate_text(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(MAX_TEXT_CHARS) {
        None => Cow::Borrowed(s),
        Some(_) => {
            let mut out: String = s.chars().take(MAX_TEXT_CHARS - 1).collect();
            out.push(ELLIPSIS);
            Cow::Owned(out)
        }
    }
}

/// A name as listings print it (before quoting): runs of whitespace (newlines, tabs, no-break
/// spaces included) become one space, ends trimmed, then [`truncate_text`].
pub fn clean_name(name: &str) -> String {
    let collapsed = name.split_whitespace().collect::<Vec<_>>().join(" ");
    truncate_text(&collapsed).into_owned()
}

/// A string as a JSON string literal (quotes included), the escaping every quoted field of the
/// compact listing uses: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, other control characters as
/// `\u00XX` (lowercase hex); everything else, non-ASCII included, as is.
pub fn quote(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

/// An optional field's value as both forms print it: strings truncated, anything else as is.
fn extra_value(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(truncate_text(s).into_owned()),
        other => other.clone(),
    }
}

fn header_line(window: &WindowSummary, plan: &Plan<'_>) -> String {
    format!(
        "{} {} {} app={} controls={} interactive={} new={}",
        window.kind.as_str(),
        window.id,
        quote(&clean_name(&window.name)),
        quote(&window.app),
        plan.total,
        plan.interactive,
        plan.new,
    )
}

pub(crate) fn control_line(c: &Control, fields: &[String]) -> String {
    let mut line = String::new();
    if c.is_new {
        line.push('*');
    }
    let _ = write!(
        line,
        "{} {} {}",
        c.id,
        c.kind.as_str(),
        quote(&clean_name(&c.name))
    );
    if let Some(value) = &c.value {
        let _ = write!(line, " = {}", quote(&truncate_text(value)));
    }
    for flag in &c.states {
        line.push(' ');
        line.push_str(flag.as_str());
    }
    for field in fields {
        if field == FIELD_RECT {
            if let Some([l, t, r, b]) = c.rect {
                let _ = write!(line, " rect=[{l},{t},{r},{b}]");
            }
        } else if let Some(v) = c.extra.get(field.as_str()) {
            let _ = write!(line, " {field}={}", extra_value(v));
        }
    }
    line
}

/// The compact listing of docs/observation.md: a header line, one line per listed control, and
/// one `… ` footer line per reason controls were left out. Every line ends in `\n`.
pub fn render_compact(
    window: &WindowSummary,
    controls: &[Control],
    opts: &ListingOptions,
) -> String {
    let plan = plan(controls, opts);
    let mut out = header_line(window, &plan);
    out.push('\n');
    // When every control is new (the window shows another document), the header's `new` says
    // so once; a marker on every line would say nothing more.
    let all_new = plan.total > 0 && plan.new == plan.total;
    for c in &plan.listed {
        let line = control_line(c, &plan.fields);
        out.push_str(if all_new {
            line.trim_start_matches('*')
        } else {
            &line
        });
        out.push('\n');
    }
    for o in &plan.omitted {
        out.push(ELLIPSIS);
        out.push(' ');
        out.push_str(&o.note);
        out.push('\n');
    }
    out
}

pub(crate) fn control_json(c: &Control, fields: &[String]) -> Value {
    let mut obj = Map::new();
    obj.insert("id".into(), Value::String(c.id.clone()));
    obj.insert("type".into(), Value::String(c.kind.as_str().into()));
    obj.insert("name".into(), Value::String(clean_name(&c.name)));
    obj.insert(
        "value".into(),
        c.value.as_deref().map_or(Value::Null, |v| {
            Value::String(truncate_text(v).into_owned())
        }),
    );
    obj.insert(
        "states".into(),
        Value::Array(
            c.states
                .iter()
                .map(|s| Value::String(s.as_str().into()))
                .collect(),
        ),
    );
    obj.insert("new".into(), Value::Bool(c.is_new));
    obj.insert("interactive".into(), Value::Bool(c.interactive));
    for field in fields {
        if field == FIELD_RECT {
            obj.insert("rect".into(), c.rect.map_or(Value::Null, |r| json!(r)));
        } else if let Some(v) = c.extra.get(field.as_str()) {
            obj.entry(field.clone()).or_insert_with(|| extra_value(v));
        }
    }
    Value::Object(obj)
}

/// The JSON form (`format: "json"`) of docs/observation.md: `{window, counts, controls, omitted}`
/// with the same controls, strings and omissions as [`render_compact`].
pub fn render_json(window: &WindowSummary, controls: &[Control], opts: &ListingOptions) -> Value {
    let plan = plan(controls, opts);
    json!({
        "window": window.to_json(),
        "counts": {
            "controls": plan.total,
            "interactive": plan.interactive,
            "new": plan.new,
            "listed": plan.listed.len(),
        },
        "controls": plan.listed.iter().map(|c| control_json(c, &plan.fields)).collect::<Vec<_>>(),
        "omitted": plan.omitted,
    })
}

/// [`render_compact`] or [`render_json`], as `opts.format` asks; the JSON form as compact JSON text.
pub fn render(window: &WindowSummary, controls: &[Control], opts: &ListingOptions) -> String {
    match opts.format {
        ListingFormat::Compact => render_compact(window, controls, opts),
        ListingFormat::Json => render_json(window, controls, opts).to_string(),
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn subtree_takes_a_string_or_number_id() {
        let o: ListingOptions = serde_json::from_value(json!({"subtree": 7})).unwrap();
        assert_eq!(o.subtree.as_deref(), Some("7"));
        let o: ListingOptions = serde_json::from_value(json!({"subtree": " 12 "})).unwrap();
        assert_eq!(o.subtree.as_deref(), Some("12"));
        let o: ListingOptions = serde_json::from_value(json!({"subtree": null})).unwrap();
        assert_eq!(o.subtree, None);
        let e = serde_json::from_value::<ListingOptions>(json!({"subtree": [1]})).unwrap_err();
        assert!(
            e.to_string().contains("subtree must be a control id"),
            "{e}"
        );
    }

    use super::*;

    fn win() -> WindowSummary {
        WindowSummary::new("1", "W", WindowType::Window, "app")
    }

    fn lines(s: &str) -> Vec<&str> {
        s.lines().collect()
    }

    #[test]
    fn quoting_uses_json_escapes_and_keeps_non_ascii() {
        assert_eq!(quote("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(quote("x\ny\tz\r"), r#""x\ny\tz\r""#);
        assert_eq!(quote("\u{1}\u{1f}"), r#""\u0001\u001f""#);
        assert_eq!(quote("café 苏州 ß"), "\"café 苏州 ß\"");
    }

    #[test]
    fn names_collapse_whitespace_values_keep_it() {
        let c = Control::new("5", ControlType::Edit, "  First\n\tname\u{a0} ").with_value("a\nb");
        let out = render_compact(&win(), &[c], &ListingOptions::default());
        assert_eq!(lines(&out)[1], r#"5 edit "First name" = "a\nb""#);
    }

    #[test]
    fn truncation_is_exactly_80_chars_with_ellipsis() {
        let exact: String = "é".repeat(80);
        assert_eq!(truncate_text(&exact), exact.as_str());
        let long: String = "é".repeat(81);
        let t = truncate_text(&long);
        assert_eq!(t.chars().count(), 80);
        assert!(t.ends_with('…'));
        assert_eq!(t.chars().filter(|&c| c == 'é').count(), 79);
        // Truncation counts characters before escaping.
        let v: String = "\n".repeat(100);
        let c = Control::new("1", ControlType::Edit, "").with_value(v);
        let line = control_line(&c, &[]);
        assert_eq!(line, format!("1 edit \"\" = \"{}…\"", "\\n".repeat(79)));
    }

    #[test]
    fn states_print_in_canonical_order() {
        let c = Control::new("3", ControlType::Checkbox, "A").with_states([
            StateFlag::Invalid,
            StateFlag::Checked,
            StateFlag::Disabled,
        ]);
        assert_eq!(
            control_line(&c, &[]),
            r#"3 checkbox "A" disabled checked invalid"#
        );
    }

    #[test]
    fn role_maps_cover_common_roles() {
        assert_eq!(ControlType::from_atspi_role(43), ControlType::Button);
        assert_eq!(ControlType::from_atspi_role(79), ControlType::Edit);
        assert_eq!(ControlType::from_atspi_role(61), ControlType::Edit);
        assert_eq!(ControlType::from_atspi_role(29), ControlType::Text);
        assert_eq!(ControlType::from_atspi_role(23), ControlType::Window);
        assert_eq!(ControlType::from_atspi_role(91), ControlType::Treeitem);
        assert_eq!(ControlType::from_atspi_role(130), ControlType::Checkbox);
        assert_eq!(ControlType::from_atspi_role(9999), ControlType::Other);
        assert_eq!(ControlType::from_aria_role("textbox"), ControlType::Edit);
        assert_eq!(ControlType::from_aria_role("StaticText"), ControlType::Text);
        assert_eq!(
            ControlType::from_aria_role("RootWebArea"),
            ControlType::Document
        );
        assert_eq!(ControlType::from_aria_role("tab"), ControlType::Tabitem);
        assert_eq!(ControlType::from_aria_role("tablist"), ControlType::Tab);
        assert_eq!(ControlType::from_aria_role("gridcell"), ControlType::Cell);
        assert_eq!(ControlType::from_aria_role("option"), ControlType::Listitem);
        assert_eq!(ControlType::from_aria_role("banana"), ControlType::Other);
    }

    #[test]
    fn android_classes_map_by_their_simple_name() {
        let t = ControlType::from_android_class;
        assert_eq!(t("android.widget.Button"), ControlType::Button);
        assert_eq!(
            t("com.google.android.material.button.MaterialButton"),
            ControlType::Button
        );
        assert_eq!(t("android.widget.EditText"), ControlType::Edit);
        assert_eq!(
            t("android.widget.SearchView$SearchAutoComplete"),
            ControlType::Edit
        );
        assert_eq!(t("android.widget.Switch"), ControlType::Checkbox);
        assert_eq!(
            t("androidx.recyclerview.widget.RecyclerView"),
            ControlType::List
        );
        assert_eq!(
            t("com.google.android.material.tabs.TabLayout$TabView"),
            ControlType::Tabitem
        );
        assert_eq!(t("android.widget.TextView"), ControlType::Text);
        assert_eq!(t("android.widget.FrameLayout"), ControlType::Group);
        assert_eq!(t("android.webkit.WebView"), ControlType::Document);
        assert_eq!(t("com.example.Banana"), ControlType::Other);
        assert_eq!(t(""), ControlType::Other);
    }

    #[test]
    fn vocabulary_words_round_trip() {
        for t in ControlType::ALL {
            assert_eq!(t.as_str().parse::<ControlType>(), Ok(*t));
            assert_eq!(
                serde_json::to_value(t).unwrap(),
                Value::String(t.as_str().into())
            );
        }
        for s in StateFlag::ALL {
            assert_eq!(s.as_str().parse::<StateFlag>(), Ok(*s));
        }
    }
}
