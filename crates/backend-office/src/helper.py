"""deft's UNO helper: one JSON request per line on stdin, one JSON answer per line on stdout.

It runs on Debian's /usr/bin/python3 (the only Python with `uno`, package python3-uno), is
written out by deft-backend-office at run time and talks to LibreOffice instances over their
`--accept=pipe,name=...` pipes. It answers with data only: every text a model reads is made in
Rust (texts.rs) from the `kind` and fields of an answer.

Request:  {"id": 7, "op": "w_insert_table", "pipe": "deft-office-...", "xid": 4194421, "args": {...}}
Answer:   {"id": 7, "ok": true, "result": {...}}
          {"id": 7, "ok": false, "kind": "no_sheet", ...fields}
First line (before any request): {"ready": true} or {"ready": false, "kind": "no_uno", "detail": ...}
"""

import json
import sys
import threading
import traceback

try:
    import uno
    import unohelper
    from com.sun.star.beans import PropertyValue
    from com.sun.star.connection import NoConnectException
    from com.sun.star.lang import DisposedException
    from com.sun.star.awt import XCallback
    from com.sun.star.task import XInteractionHandler
    from com.sun.star.uno import RuntimeException
except ImportError as e:  # python3-uno is missing
    print(json.dumps({"ready": False, "kind": "no_uno", "detail": str(e)}), flush=True)
    sys.exit(3)

SYSTEM_XWINDOW = 6  # com.sun.star.lang.SystemDependent.SYSTEM_XWINDOW

KINDS = (
    ("com.sun.star.presentation.PresentationDocument", "impress"),
    ("com.sun.star.sheet.SpreadsheetDocument", "calc"),
    ("com.sun.star.text.TextDocument", "writer"),
    ("com.sun.star.drawing.DrawingDocument", "draw"),
)


class Refusal(Exception):
    """An answer with ok=false: `kind` and fields for the Rust side's texts."""

    def __init__(self, kind, **fields):
        super().__init__(kind)
        self.kind = kind
        self.fields = fields


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


class Refuse(unohelper.Base, XInteractionHandler):
    """An interaction handler that answers every question with its abort (or the first
    "no") and keeps what was asked, so a load never waits on a dialog nobody sees."""

    def __init__(self):
        self.asked = []

    def handle(self, request):
        req = request.getRequest()
        text = getattr(req, "Message", "") or ""
        name = req.typeName if hasattr(req, "typeName") else type(req).__name__
        self.asked.append(text.strip() or str(name))
        chosen = None
        for c in request.getContinuations():
            names = str(c.getTypes()) if hasattr(c, "getTypes") else ""
            if "XInteractionAbort" in names:
                chosen = c
                break
            if chosen is None and "XInteractionDisapprove" in names:
                chosen = c
        if chosen is not None:
            chosen.select()


class Job(unohelper.Base, XCallback):
    """One operation, run by LibreOffice's main thread (AsyncCallback). A call from the bridge's
    own thread that touches the GUI can deadlock the gtk3 plug-in (a new window's menus ask
    the clipboard from the wrong thread); calls made inside the callback run on the main thread,
    as the bridge keeps a call chain on one thread."""

    def __init__(self, fn):
        self.fn = fn
        self.done = threading.Event()
        self.result = None
        self.error = None

    def notify(self, data):
        try:
            self.result = self.fn()
        except BaseException as e:  # handed to the waiting thread
            self.error = e
        finally:
            self.done.set()


# Each connection's AsyncCallback service, by pipe (made once: a round trip saved per call).
CALLBACKS = {}


def on_main(pipe, fn):
    """Runs `fn` on the main thread of the LibreOffice on `pipe` and answers its result (or
    raises its error). Waits as long as it takes: deft bounds the call and watches LibreOffice's
    process."""
    callback = CALLBACKS.get(pipe)
    if callback is None:
        ctx, smgr, _ = desktop_of(pipe)
        callback = smgr.createInstanceWithContext("com.sun.star.awt.AsyncCallback", ctx)
        CALLBACKS[pipe] = callback
    job = Job(fn)
    uno.invoke(callback, "addCallback", (job, uno.Any("void", None)))
    job.done.wait()
    if job.error is not None:
        raise job.error
    return job.result


# --- connections -------------------------------------------------------------------------------

CONNECTIONS = {}


def desktop_of(pipe):
    """The Desktop of the instance on `pipe`, connected once and kept."""
    if pipe in CONNECTIONS:
        return CONNECTIONS[pipe]
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext(
        "com.sun.star.bridge.UnoUrlResolver", local
    )
    try:
        ctx = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
    except NoConnectException as e:
        raise Refusal("no_office", detail=str(e.Message))
    smgr = ctx.ServiceManager
    desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    CONNECTIONS[pipe] = (ctx, smgr, desktop)
    return CONNECTIONS[pipe]


def xid_of(frame):
    try:
        handle = frame.getContainerWindow().getWindowHandle(tuple([0] * 16), SYSTEM_XWINDOW)
    except Exception:
        return None
    value = getattr(handle, "WindowHandle", handle)
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def kind_of(model):
    if model is None:
        return "none"
    for service, kind in KINDS:
        if model.supportsService(service):
            return kind
    return "other"


def describe_frame(frame, active_xid):
    controller = frame.getController()
    model = controller.getModel() if controller is not None else None
    xid = xid_of(frame)
    return {
        "xid": xid,
        "title": frame.Title,
        "kind": kind_of(model),
        "url": model.getURL() if model is not None else "",
        "modified": bool(model.isModified()) if model is not None else False,
        "active": xid is not None and xid == active_xid,
    }


def all_frames(desktop):
    frames = desktop.getFrames()
    return [frames.getByIndex(i) for i in range(frames.getCount())]


# The frame of each X window found before, by (pipe, xid): finding it asks every frame for its
# window (a round trip each), so a call costs the same with one document open or twenty.
FRAMES = {}


def frame_by_xid(pipe, desktop, xid):
    """The frame of X window `xid` and its controller (None: no document in it)."""
    cached = FRAMES.get((pipe, xid))
    if cached is not None:
        try:
            controller = cached.getController()
            if controller is not None:
                return cached, controller
        except Exception:  # disposed: the window was closed
            pass
        FRAMES.pop((pipe, xid), None)
    for f in all_frames(desktop):
        if xid_of(f) == xid:
            FRAMES[(pipe, xid)] = f
            return f, f.getController()
    raise Refusal("window_gone", xid=xid)


def forget(pipe):
    """Drops the connection on `pipe` and the frames found through it."""
    CONNECTIONS.pop(pipe, None)
    CALLBACKS.pop(pipe, None)
    for key in [k for k in FRAMES if k[0] == pipe]:
        del FRAMES[key]


class Target:
    """The document of one frame: the request's pipe and X window."""

    def __init__(self, req):
        self.ctx, self.smgr, self.desktop = desktop_of(req["pipe"])
        self.frame, self.controller = frame_by_xid(req["pipe"], self.desktop, req["xid"])
        self.doc = self.controller.getModel() if self.controller is not None else None
        self.kind = kind_of(self.doc)

    def need(self, kind):
        if self.kind != kind:
            raise Refusal("wrong_kind", want=kind, have=self.kind, title=self.frame.Title)
        return self.doc


# --- common operations -------------------------------------------------------------------------

def op_ping(req):
    desktop_of(req["pipe"])
    return {}


def op_frames(req):
    _, _, desktop = desktop_of(req["pipe"])
    active = desktop.getActiveFrame()
    active_xid = xid_of(active) if active is not None else None
    return {"frames": [describe_frame(f, active_xid) for f in all_frames(desktop)]}


def op_open(req):
    _, _, desktop = desktop_of(req["pipe"])
    args = req["args"]
    handler = Refuse()
    props = [
        prop("InteractionHandler", handler),
        prop("MacroExecutionMode", 0),  # NEVER_EXECUTE
        prop("UpdateDocMode", 0),  # NO_UPDATE of links
    ]
    if args.get("filter"):
        props.append(prop("FilterName", args["filter"]))
    if args.get("filter_options"):
        props.append(prop("FilterOptions", args["filter_options"]))
    url = args["url"]
    try:
        doc = desktop.loadComponentFromURL(url, "_blank", 0, tuple(props))
    except Exception as e:  # IllegalArgumentException, IOException, …
        raise Refusal("load_failed", asked=handler.asked, detail=getattr(e, "Message", str(e)))
    if doc is None:
        raise Refusal("load_failed", asked=handler.asked, detail="")
    locate(doc, args.get("location"))
    frame = doc.getCurrentController().getFrame()
    return describe_frame(frame, None)


def locate(doc, location):
    """Gives the document its place as its URL: LibreOffice read (or wrote) deft's private
    copy, the document is the file in the documents folder. Its own saves still go to the
    private file, from which deft carries them to the place."""
    if location:
        doc.attachResource(location, doc.getArgs())


def media_arg(doc, name):
    for a in doc.getArgs():
        if a.Name == name:
            return a.Value
    return None


def op_info(req):
    t = Target(req)
    out = describe_frame(t.frame, None)
    out["location"] = bool(t.doc.hasLocation()) if t.doc is not None else False
    if t.doc is not None:
        out["filter"] = media_arg(t.doc, "FilterName") or ""
        out["filter_options"] = media_arg(t.doc, "FilterOptions") or ""
    if t.kind == "calc":
        out["sheet"] = t.controller.getActiveSheet().Name
    return out


def op_store(req):
    t = Target(req)
    if t.doc is None:
        raise Refusal("no_document", title=t.frame.Title)
    args = req["args"]
    props = [prop("FilterName", args["filter"]), prop("Overwrite", True)]
    if args.get("filter_options"):
        props.append(prop("FilterOptions", args["filter_options"]))
    if args.get("filter_data"):
        props.append(prop("FilterData", tuple(prop(k, v) for k, v in args["filter_data"].items())))
    try:
        if args.get("mode") == "as":
            t.doc.storeAsURL(args["url"], tuple(props))
            locate(t.doc, args.get("location"))
        else:
            t.doc.storeToURL(args["url"], tuple(props))
    except Exception as e:
        raise Refusal("store_failed", url=args.get("location") or args["url"], detail=getattr(e, "Message", str(e)))
    out = {"url": args["url"], "title": t.frame.Title}
    if t.kind == "calc":
        out["sheet"] = t.controller.getActiveSheet().Name
    return out


def op_unsaved(req):
    """Marks the document modified again: deft could not move what LibreOffice wrote into its
    place, so the document's changes are not saved."""
    t = Target(req)
    if t.doc is not None:
        t.doc.setModified(True)
    return {}


def op_close(req):
    t = Target(req)
    title = t.frame.Title
    discarded = False
    if t.doc is not None:
        discarded = bool(t.doc.isModified())
        t.doc.setModified(False)
        # Let LibreOffice finish what is pending first: Impress closed while the previews of a
        # change are still being redrawn aborts (in the slide sorter's accessibility) when
        # an assistive client watches, as deft's desktop does.
        toolkit = t.smgr.createInstanceWithContext("com.sun.star.awt.Toolkit", t.ctx)
        toolkit.processEventsToIdle()
        t.doc.close(True)
    else:
        t.frame.close(True)
    return {"title": title, "discarded": discarded}


def op_fonts(req):
    ctx, smgr, _ = desktop_of(req["pipe"])
    toolkit = smgr.createInstanceWithContext("com.sun.star.awt.Toolkit", ctx)
    device = toolkit.createScreenCompatibleDevice(0, 0)
    return {"fonts": sorted({f.Name for f in device.getFontDescriptors()})}


# --- Writer ------------------------------------------------------------------------------------

def body_elements(doc):
    """The body's paragraphs and tables, in order."""
    out = []
    en = doc.Text.createEnumeration()
    while en.hasMoreElements():
        out.append(en.nextElement())
    return out


def is_table(element):
    return element.supportsService("com.sun.star.text.TextTable")


def table_text(table):
    rows = []
    for r in range(table.getRows().getCount()):
        cells = []
        for c in range(table.getColumns().getCount()):
            cell = table.getCellByPosition(c, r) if hasattr(table, "getCellByPosition") else None
            cells.append(cell.getString() if cell is not None else "")
        rows.append(" | ".join(cells))
    return "\n".join(rows)


def op_w_insert_table(req):
    t = Target(req)
    doc = t.need("writer")
    a = req["args"]
    table = doc.createInstance("com.sun.star.text.TextTable")
    table.initialize(a["rows"], a["columns"])
    text = doc.Text
    cursor = text.createTextCursorByRange(text.getEnd())
    text.insertTextContent(cursor, table, False)
    tables = doc.getTextTables()
    names = list(tables.getElementNames())
    return {"name": table.Name, "index": names.index(table.Name) + 1, "tables": tables.getCount()}


def op_w_select_text(req):
    t = Target(req)
    doc = t.need("writer")
    needle = req["args"]["text"]
    sd = doc.createSearchDescriptor()
    sd.SearchString = needle
    found = doc.findFirst(sd)
    if found is None:
        raise Refusal("text_not_found", text=needle)
    t.controller.select(found)
    return {"selected": found.getString(), "occurrences": doc.findAll(sd).getCount()}


def op_w_select_table(req):
    t = Target(req)
    doc = t.need("writer")
    number = req["args"]["number"]
    tables = doc.getTextTables()
    count = tables.getCount()
    if number < 1 or number > count:
        raise Refusal("table_out_of_range", number=number, count=count)
    # Tables in document order: the anchors' order, not the names' (Table10 after Table9).
    ordered = [e for e in body_elements(doc) if is_table(e)]
    table = ordered[number - 1] if number <= len(ordered) else tables.getByIndex(number - 1)
    rows, cols = table.getRows().getCount(), table.getColumns().getCount()
    names = table.getCellNames()
    cells = table.getCellRangeByName("%s:%s" % (names[0], names[-1]))
    t.controller.select(cells)
    return {"name": table.Name, "rows": rows, "columns": cols, "count": count}


def op_w_select_paragraph(req):
    t = Target(req)
    doc = t.need("writer")
    a = req["args"]
    paragraphs = [e for e in body_elements(doc) if not is_table(e)]
    if a["non_empty"]:
        paragraphs = [p for p in paragraphs if p.getString().strip()]
    count = len(paragraphs)
    start = max(1, a["start_index"])
    end = a["end_index"]
    if count == 0:
        raise Refusal("no_paragraphs", non_empty=a["non_empty"])
    if start > count:
        raise Refusal("paragraph_out_of_range", field="start_index", value=start, count=count, non_empty=a["non_empty"])
    if end != -1 and (end < start or end > count):
        raise Refusal("paragraph_out_of_range", field="end_index", value=end, count=count, non_empty=a["non_empty"], start=start)
    text = doc.Text
    cursor = text.createTextCursorByRange(paragraphs[start - 1].getStart())
    last = text.getEnd() if end == -1 else paragraphs[end - 1].getEnd()
    cursor.gotoRange(last, True)
    t.controller.select(cursor)
    last_index = count if end == -1 else end
    return {"first": start, "last": last_index, "count": count, "selected": cursor.getString()}


def selection_ranges(sel):
    """The text ranges (or the table cell range) of a Writer selection."""
    if sel is None:
        return []
    if hasattr(sel, "getCount") and hasattr(sel, "getByIndex"):
        return [sel.getByIndex(i) for i in range(sel.getCount())]
    return [sel]


def op_w_set_font(req):
    t = Target(req)
    doc = t.need("writer")
    a = req["args"]
    ranges = selection_ranges(t.controller.getSelection())
    text_ranges = [r for r in ranges if hasattr(r, "getString")]
    chars = sum(len(r.getString()) for r in text_ranges)
    cells = [r for r in ranges if not hasattr(r, "getString") and hasattr(r, "setPropertyValue")]
    if chars == 0 and not cells:
        # An insertion point: set it for what is typed there, as the font box does.
        dispatcher = t.smgr.createInstanceWithContext("com.sun.star.frame.DispatchHelper", t.ctx)
        if a.get("font_name"):
            dispatcher.executeDispatch(t.frame, ".uno:CharFontName", "", 0, (prop("CharFontName.FamilyName", a["font_name"]),))
        if a.get("font_size"):
            dispatcher.executeDispatch(t.frame, ".uno:FontHeight", "", 0, (prop("FontHeight.Height", float(a["font_size"])),))
        return {"collapsed": True, "chars": 0, "selected": ""}
    targets = text_ranges + cells
    for r in targets:
        if a.get("font_name"):
            # The whole font, alike for every script: text mixing Latin and CJK then has one font,
            # and the font box shows its name (it is empty while the scripts' fonts differ in
            # any part: name, style, family, pitch, character set).
            for suffix in ("", "Asian", "Complex"):
                r.setPropertyValue("CharFontName" + suffix, a["font_name"])
                r.setPropertyValue("CharFontStyleName" + suffix, "")
                r.setPropertyValue("CharFontFamily" + suffix, 0)  # DONTKNOW
                r.setPropertyValue("CharFontPitch" + suffix, 0)  # DONTKNOW
                r.setPropertyValue("CharFontCharSet" + suffix, 0)  # DONTKNOW
        if a.get("font_size"):
            for p in ("CharHeight", "CharHeightAsian", "CharHeightComplex"):
                r.setPropertyValue(p, float(a["font_size"]))
    selected = "".join(r.getString() for r in text_ranges)
    return {"collapsed": False, "chars": chars, "cells": len(cells), "selected": selected}


def op_w_text(req):
    t = Target(req)
    doc = t.need("writer")
    parts = []
    for e in body_elements(doc):
        parts.append(table_text(e) if is_table(e) else e.getString())
    return {"text": "\n".join(parts)}


# --- Calc --------------------------------------------------------------------------------------

def sheet_of(doc, name):
    sheets = doc.getSheets()
    names = list(sheets.getElementNames())
    if isinstance(name, int) and not isinstance(name, bool):
        if 1 <= name <= len(names):
            return sheets.getByIndex(name - 1)
        raise Refusal("no_sheet", sheet=name, sheets=names)
    if sheets.hasByName(name):
        return sheets.getByName(name)
    for n in names:
        if n.lower() == str(name).lower():
            return sheets.getByName(n)
    if str(name).isdigit() and 1 <= int(name) <= len(names):
        return sheets.getByIndex(int(name) - 1)
    raise Refusal("no_sheet", sheet=name, sheets=names)


def used_end(sheet):
    """(last column, last row), 0-based, of the sheet's used area; (-1, -1) when empty."""
    cursor = sheet.createCursor()
    cursor.gotoEndOfUsedArea(False)
    addr = cursor.getRangeAddress()
    col, row = addr.EndColumn, addr.EndRow
    if col == 0 and row == 0 and sheet.getCellByPosition(0, 0).getType().value == "EMPTY":
        return -1, -1
    return col, row


def cell_value(v):
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return int(v)
    return v


def col_name(col):
    name = ""
    col += 1
    while col:
        col, rem = divmod(col - 1, 26)
        name = chr(65 + rem) + name
    return name


def range_name(c0, r0, c1, r1):
    return "%s%d:%s%d" % (col_name(c0), r0 + 1, col_name(c1), r1 + 1)


def op_c_sheets(req):
    t = Target(req)
    doc = t.need("calc")
    return {"sheets": list(doc.getSheets().getElementNames()), "active": t.controller.getActiveSheet().Name}


def op_c_table(req):
    t = Target(req)
    doc = t.need("calc")
    a = req["args"]
    sheet = sheet_of(doc, a["sheet"])
    last_col, last_row = used_end(sheet)
    if last_row < 0:
        return {"sheet": sheet.Name, "rows": [], "total_rows": 0, "columns": 0}
    take = min(last_row, a["max_rows"])
    rng = sheet.getCellRangeByPosition(0, 0, last_col, take)
    rows = [[cell_value(v) for v in row] for row in rng.getDataArray()]
    return {"sheet": sheet.Name, "rows": rows, "total_rows": last_row + 1, "columns": last_col + 1, "range": range_name(0, 0, last_col, last_row)}


def op_c_insert(req):
    t = Target(req)
    doc = t.need("calc")
    a = req["args"]
    sheet = sheet_of(doc, a["sheet"])
    table = a["table"]
    width = max(len(r) for r in table)
    c0, r0 = a["start_col"] - 1, a["start_row"] - 1
    c1, r1 = c0 + width - 1, r0 + len(table) - 1
    if c1 > 16383 or r1 > 1048575:
        raise Refusal("outside_sheet", range=range_name(c0, r0, min(c1, 16383), min(r1, 1048575)))
    data, formulas = [], []
    for i, row in enumerate(table):
        out = []
        for j in range(width):
            v = row[j] if j < len(row) else ""
            if v is None:
                v = ""
            elif isinstance(v, bool):
                v = 1.0 if v else 0.0
            elif isinstance(v, (int, float)):
                v = float(v)
            else:
                v = str(v)
                if v.startswith("=") and len(v) > 1:
                    formulas.append((c0 + j, r0 + i, v))
                    v = ""
            out.append(v)
        data.append(tuple(out))
    rng = sheet.getCellRangeByPosition(c0, r0, c1, r1)
    rng.setDataArray(tuple(data))
    for c, r, f in formulas:
        sheet.getCellByPosition(c, r).setFormula(f)
    return {"sheet": sheet.Name, "range": range_name(c0, r0, c1, r1), "rows": len(table), "columns": width, "formulas": len(formulas)}


def resolve_range(sheet, a):
    last_col, last_row = used_end(sheet)
    c0, r0 = a["start_col"] - 1, a["start_row"] - 1
    c1 = last_col if a["end_col"] == -1 else a["end_col"] - 1
    r1 = last_row if a["end_row"] == -1 else a["end_row"] - 1
    c1, r1 = max(c1, c0), max(r1, r0)
    if c1 > 16383 or r1 > 1048575:
        raise Refusal("outside_sheet", range=range_name(c0, r0, min(c1, 16383), min(r1, 1048575)))
    return c0, r0, c1, r1


def op_c_select(req):
    t = Target(req)
    doc = t.need("calc")
    a = req["args"]
    sheet = sheet_of(doc, a["sheet"])
    c0, r0, c1, r1 = resolve_range(sheet, a)
    t.controller.setActiveSheet(sheet)
    t.controller.select(sheet.getCellRangeByPosition(c0, r0, c1, r1))
    return {"sheet": sheet.Name, "range": range_name(c0, r0, c1, r1), "cells": (c1 - c0 + 1) * (r1 - r0 + 1)}


def op_c_values(req):
    t = Target(req)
    doc = t.need("calc")
    a = req["args"]
    sheet = sheet_of(doc, a["sheet"])
    c0, r0, c1, r1 = resolve_range(sheet, a)
    cells = (c1 - c0 + 1) * (r1 - r0 + 1)
    if cells > a["max_cells"]:
        raise Refusal("range_too_large", range=range_name(c0, r0, c1, r1), cells=cells, max=a["max_cells"])
    rng = sheet.getCellRangeByPosition(c0, r0, c1, r1)
    values = [[cell_value(v) for v in row] for row in rng.getDataArray()]
    return {"sheet": sheet.Name, "range": range_name(c0, r0, c1, r1), "values": values}


def op_c_reorder(req):
    t = Target(req)
    doc = t.need("calc")
    a = req["args"]
    sheet = sheet_of(doc, a["sheet"])
    last_col, _ = used_end(sheet)
    if last_col < 0:
        raise Refusal("empty_sheet", sheet=sheet.Name)
    headers = [sheet.getCellByPosition(c, 0).getString() for c in range(last_col + 1)]
    order = []
    for name in a["order"]:
        idx = [i for i, h in enumerate(headers) if h == name] or [
            i for i, h in enumerate(headers) if h.strip().lower() == str(name).strip().lower()
        ]
        if not idx:
            raise Refusal("no_column", column=name, headers=headers, sheet=sheet.Name)
        if idx[0] in order:
            raise Refusal("column_twice", column=name)
        order.append(idx[0])
    order += [i for i in range(len(headers)) if i not in order]
    columns = sheet.getColumns()
    current = list(range(len(headers)))  # current[i] = original index of the column now at i
    for target, original in enumerate(order):
        at = current.index(original)
        if at == target:
            continue
        columns.insertByIndex(target, 1)
        at += 1  # the column moved right with the insertion
        src = sheet.getCellRangeByPosition(at, 0, at, 1048575).getRangeAddress()
        dest = sheet.getCellByPosition(target, 0).getCellAddress()
        sheet.moveRange(dest, src)
        columns.removeByIndex(at, 1)
        current.insert(target, current.pop(at - 1))
    after = [sheet.getCellByPosition(c, 0).getString() for c in range(last_col + 1)]
    return {"sheet": sheet.Name, "before": headers, "after": after}


# --- Impress -----------------------------------------------------------------------------------

def op_i_background(req):
    t = Target(req)
    doc = t.need("impress")
    a = req["args"]
    pages = doc.getDrawPages()
    count = pages.getCount()
    wanted = a.get("slides") or list(range(1, count + 1))
    for n in wanted:
        if n < 1 or n > count:
            raise Refusal("slide_out_of_range", slide=n, count=count)
    for n in wanted:
        page = pages.getByIndex(n - 1)
        bg = doc.createInstance("com.sun.star.drawing.Background")
        bg.FillStyle = uno.Enum("com.sun.star.drawing.FillStyle", "SOLID")
        bg.FillColor = a["color"]
        page.Background = bg
    return {"slides": wanted, "count": count}


def shape_texts(shapes):
    out = []
    for i in range(shapes.getCount()):
        s = shapes.getByIndex(i)
        if s.supportsService("com.sun.star.drawing.GroupShape"):
            out += shape_texts(s)
        elif hasattr(s, "getString"):
            text = s.getString()
            if text.strip():
                out.append(text)
    return out


def op_i_text(req):
    t = Target(req)
    doc = t.need("impress")
    pages = doc.getDrawPages()
    slides = []
    for i in range(pages.getCount()):
        page = pages.getByIndex(i)
        notes = shape_texts(page.getNotesPage()) if hasattr(page, "getNotesPage") else []
        slides.append({"index": i + 1, "name": page.Name, "texts": shape_texts(page), "notes": notes})
    return {"slides": slides, "current": current_slide(t, pages)}


def current_slide(t, pages):
    current = t.controller.getCurrentPage() if hasattr(t.controller, "getCurrentPage") else None
    for i in range(pages.getCount()):
        if current is not None and pages.getByIndex(i).Name == current.Name:
            return i + 1
    return 1


def op_i_export_images(req):
    t = Target(req)
    doc = t.need("impress")
    a = req["args"]
    pages = doc.getDrawPages()
    current = current_slide(t, pages)
    wanted = [current] if a["current_only"] else list(range(1, pages.getCount() + 1))
    exporter = t.smgr.createInstanceWithContext("com.sun.star.drawing.GraphicExportFilter", t.ctx)
    files = []
    for n in wanted:
        url = a["url"] if len(wanted) == 1 else "%s_%d.%s" % (a["stem_url"], n, a["ext"])
        exporter.setSourceDocument(pages.getByIndex(n - 1))
        exporter.filter((prop("URL", url), prop("MediaType", a["media_type"])))
        files.append(url)
    return {"files": files, "slides": wanted}


OPS = {name[3:]: fn for name, fn in globals().items() if name.startswith("op_")}


def alive(pipe):
    """Whether the connection on `pipe` still answers."""
    conn = CONNECTIONS.get(pipe)
    if conn is None:
        return False
    try:
        conn[2].getFrames().getCount()
        return True
    except Exception:
        return False


def answer(req):
    op = OPS.get(req.get("op"))
    if op is None:
        return {"ok": False, "kind": "bad_request", "detail": "unknown op %r" % req.get("op")}
    try:
        if "pipe" not in req:
            return {"ok": False, "kind": "bad_request", "detail": "no pipe"}
        return {"ok": True, "result": on_main(req["pipe"], lambda: op(req))}
    except Refusal as r:
        out = {"ok": False, "kind": r.kind}
        out.update(r.fields)
        return out
    except (DisposedException, RuntimeException) as e:
        if isinstance(e, DisposedException) or not alive(req.get("pipe")):
            # The bridge to LibreOffice is gone (it crashed or was killed): reconnect next time.
            forget(req.get("pipe"))
            return {"ok": False, "kind": "disconnected", "detail": getattr(e, "Message", str(e))}
        return {"ok": False, "kind": "uno_error", "detail": getattr(e, "Message", "") or repr(e)}
    except Exception as e:  # a UNO error we did not foresee: say what it was
        detail = getattr(e, "Message", "") or repr(e)
        return {"ok": False, "kind": "uno_error", "detail": detail, "trace": traceback.format_exc(limit=3)}


def main():
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            print(json.dumps({"id": None, "ok": False, "kind": "bad_request", "detail": str(e)}), flush=True)
            continue
        out = answer(req)
        out["id"] = req.get("id")
        print(json.dumps(out, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
