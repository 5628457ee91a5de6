//! Calc's API tools on a real spreadsheet, each result checked against the files saved: the
//! CSV read as written, the .xlsx converted to CSV by a LibreOffice of its own; and each tool's
//! specific errors.

#![allow(clippy::unwrap_used)] // test helpers: a failed unwrap is a failing test

mod common;

use common::*;
use deft_test_support::office;
use serde_json::json;

const SALES: &str = "Region,Q1,Q2\nNord,10,20\nSüd – 日本,30,40\n";

#[tokio::test(flavor = "multi_thread")]
async fn calc_tools_change_the_sheet_and_the_saved_files_agree() {
    let h = Harness::new().await;
    let xlsx = office::sheet_from_csv(&h.docs, "sales", SALES, "xlsx");
    let w = h.open(&s(&xlsx)).await;

    let md = ok(&h
        .app(&w, "table2markdown", json!({"sheet_name": "sales"}))
        .await);
    assert_eq!(
        md.as_str().unwrap(),
        "| Region | Q1 | Q2 |\n|---|---|---|\n| Nord | 10 | 20 |\n| Süd – 日本 | 30 | 40 |"
    );

    let msg = changed(
        &h.app(
            &w,
            "insert_excel_table",
            json!({"table": [["Total", "=B2+B3", "=C2+C3"], ["Note", null, true]],
                   "sheet_name": 1, "start_row": 4, "start_col": "A"}),
        )
        .await,
    );
    assert_eq!(
        msg,
        "Wrote 2 × 3 cells to sales!A4:C5. 2 of them are formulas."
    );
    let v = ok(&h
        .app(
            &w,
            "get_range_values",
            json!({"sheet_name": 1, "start_row": 4, "start_col": 1, "end_row": 5, "end_col": "C"}),
        )
        .await);
    assert_eq!(
        v,
        json!({"sheet": "sales", "range": "A4:C5", "values": [["Total", 40, 60], ["Note", "", 1]]})
    );
    // The used area by default (-1).
    let v = ok(&h
        .app(
            &w,
            "get_range_values",
            json!({"sheet_name": "SALES", "start_row": 2, "start_col": 1}),
        )
        .await);
    assert_eq!(v["range"], json!("A2:C5"), "{v}");

    reorder_select_and_save(&h, &w).await;
}

/// reorder_columns and select_table_range, then save_as and save: the files as independent
/// readers see them.
async fn reorder_select_and_save(h: &Harness, w: &Window) {
    let msg = changed(
        &h.app(
            w,
            "reorder_columns",
            json!({"sheet_name": 1, "desired_order": ["q2", "Region"]}),
        )
        .await,
    );
    assert_eq!(
        msg,
        "Reordered the columns of \"sales\": Q2, Region, Q1 (was Region, Q1, Q2)."
    );
    let msg = changed(
        &h.app(
            w,
            "reorder_columns",
            json!({"sheet_name": 1, "desired_order": ["Q2"]}),
        )
        .await,
    );
    assert_eq!(
        msg,
        "The columns of \"sales\" are already in that order; nothing changed."
    );
    let msg = changed(
        &h.app(
            w,
            "select_table_range",
            json!({"sheet_name": 1, "start_row": 1, "start_col": 1}),
        )
        .await,
    );
    assert_eq!(msg, "Selected sales!A1:C5 (15 cells).");

    // save_as: CSV by default (a copy, the window keeps its file), then .xlsx (moves it).
    let r = ok(&h.app(w, "save_as", json!({})).await);
    let csv = h.doc("sales.csv");
    assert_eq!(r["path"], json!(s(&csv)), "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .ends_with("The window keeps its own file. CSV holds one sheet: the active sheet \"sales\" was written."),
        "{r}"
    );
    // The formulas moved with their columns and kept their values.
    let expected = "Q2,Region,Q1\n20,Nord,10\n40,Süd – 日本,30\n60,Total,40\n1,Note,\n";
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), expected);
    let r = ok(&h
        .app(
            w,
            "save_as",
            json!({"file_name": "sales-2", "file_ext": "xlsx"}),
        )
        .await);
    let copy = h.doc("sales-2.xlsx");
    assert_eq!(r["path"], json!(s(&copy)), "{r}");
    assert_eq!(office::sheet_csv(&copy), expected);
    let xml = office::flat_xml(&copy, "fods");
    assert!(
        xml.contains("of:=[.C2]+[.C3]"),
        "the formula is kept, moved"
    );

    // save writes the window's file (now sales-2.xlsx) in place.
    changed(
        &h.app(
            w,
            "insert_excel_table",
            json!({"table": [["Ende"]], "sheet_name": 1, "start_row": 7, "start_col": 2}),
        )
        .await,
    );
    let r = ok(&h.app(w, "save", json!({})).await);
    assert_eq!(r["path"], json!(s(&copy)), "{r}");
    assert!(office::sheet_csv(&copy).ends_with("\n,,\n,Ende,\n"));
}

#[tokio::test(flavor = "multi_thread")]
async fn calc_tools_say_what_is_wrong() {
    let h = Harness::new().await;
    let xlsx = office::sheet_from_csv(&h.docs, "sales", SALES, "xlsx");
    let w = h.open(&s(&xlsx)).await;
    let e = |tool: &'static str, args: serde_json::Value| {
        let (h, w) = (&h, &w);
        async move { err(&h.app(w, tool, args).await) }
    };
    assert_eq!(
        e("table2markdown", json!({"sheet_name": "Summary"})).await,
        "Sheet \"Summary\" does not exist; sheets: sales (a name, or its number from 1)."
    );
    assert_eq!(
        e("table2markdown", json!({"sheet_name": 3})).await,
        "Sheet 3 does not exist; sheets: sales (a name, or its number from 1)."
    );
    assert_eq!(
        e("table2markdown", json!({"sheet_name": ""})).await,
        "sheet_name must be a sheet's name or its number from 1, got \"\"."
    );
    assert_eq!(
        e(
            "get_range_values",
            json!({"sheet_name": 1, "start_row": 1, "start_col": 1, "end_row": 200, "end_col": 100})
        )
        .await,
        "The range A1:CV200 has 20000 cells; at most 10000 are read at once. Ask for a smaller range."
    );
    assert_eq!(
        e(
            "select_table_range",
            json!({"sheet_name": 1, "start_row": 1, "start_col": "A1"})
        )
        .await,
        "start_col must be a column number from 1 or its letters (A, B, … AA), got \"A1\"."
    );
    assert_eq!(
        e(
            "reorder_columns",
            json!({"sheet_name": 1, "desired_order": ["Q4"]})
        )
        .await,
        "No column headed \"Q4\" in sheet \"sales\"; its first row reads: \"Region\", \"Q1\", \"Q2\"."
    );
    assert_eq!(
        e(
            "reorder_columns",
            json!({"sheet_name": 1, "desired_order": ["Q1", "q1"]})
        )
        .await,
        "desired_order names the column \"q1\" twice."
    );
    assert_eq!(
        e(
            "insert_excel_table",
            json!({"table": [["a", ["b"]]], "sheet_name": 1, "start_row": 1, "start_col": 1})
        )
        .await,
        "table[0][1] must be a string, a number, true/false or null."
    );
    assert_eq!(
        e(
            "insert_excel_table",
            json!({"table": [["a"], ["b"]], "sheet_name": 1, "start_row": 1048576, "start_col": 1})
        )
        .await,
        "The range A1048576:A1048576 goes past the sheet's last row (1048576) or column (XFD)."
    );
    // Writer's tools are not routed to a Calc window.
    let other = e("insert_table", json!({"rows": 1, "columns": 1})).await;
    assert!(
        other.starts_with("Tool insert_table is not registered in current computer"),
        "{other}"
    );
    // Nothing changed.
    let md = ok(&h.app(&w, "table2markdown", json!({"sheet_name": 1})).await);
    assert_eq!(
        md.as_str().unwrap(),
        "| Region | Q1 | Q2 |\n|---|---|---|\n| Nord | 10 | 20 |\n| Süd – 日本 | 30 | 40 |"
    );
}
