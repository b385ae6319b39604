// rtlab view: renders the run embedded in #rtlab-data. Data is only ever put in the page as text (textContent).
(function () {
  "use strict";
  var ROW = 22;
  var data = JSON.parse(document.getElementById("rtlab-data").textContent);
  var app = document.getElementById("app");

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) {
      for (var k in attrs) {
        if (k === "text") e.textContent = attrs[k];
        else if (k === "cls") e.className = attrs[k];
        else e.setAttribute(k, attrs[k]);
      }
    }
    (children || []).forEach(function (c) {
      e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  function fmt(n) { return n === null || n === undefined ? "—" : Number(n).toLocaleString("en"); }
  function oneLine(s, w) { s = String(s || "").replace(/\s+/g, " "); return s.length > w ? s.slice(0, w - 1) + "…" : s; }

  if (document.body.getAttribute("data-kind") === "index") { renderIndex(); return; }

  var run = data.run, steps = data.steps, rubric = data.rubric;
  var pos = {};
  steps.forEach(function (s, k) { pos[s.i] = k; });
  var state = { sel: 0, cited: null, failedOnly: false, readsOnly: false, file: "" };
  var visible = [];

  // --- the frame of the page ---
  clear(app);
  var header = el("header", null, [
    el("h1", { text: run.id }),
    el("div", { cls: "facts" }, [
      el("span", { text: [run.benchmark, run.task].filter(Boolean).join(" · ") }),
      el("span", { text: run.model || "" }),
      el("span", { text: [run.method, run.variant, run.run].filter(Boolean).join(" ") }),
      el("span", { text: steps.length + " steps · tab " + run.tab }),
      el("span", { cls: data.warnings.length ? "warn" : "", text: data.warnings.length ? data.warnings.length + " reading warnings" : "" }),
      el("span", { cls: "score", text: run.score ? "score " + run.score.passed + "/" + run.score.items + " items" +
        (run.score.score === null ? "" : " (" + (100 * run.score.score).toFixed(1) + "% of points)") : "not judged" })
    ])
  ]);
  var fFailed = el("input", { type: "checkbox", id: "f-failed" });
  var fReads = el("input", { type: "checkbox", id: "f-reads" });
  var fFile = el("select", { id: "f-file" }, [el("option", { value: "", text: "all files" })]);
  data.files.forEach(function (p) { fFile.appendChild(el("option", { value: p, text: p })); });
  var counter = el("span", { id: "counter" });
  var filters = el("div", { id: "filters" }, [
    el("label", null, [fFailed, " failed items only"]),
    el("label", null, [fReads, " steps that read only"]),
    el("label", null, ["file ", fFile]),
    counter,
    el("span", { cls: "keys", text: "j/k or ↓/↑ step · n/p failed item · Home/End · / file · Esc clear" })
  ]);
  var timeline = el("div", { id: "timeline", tabindex: "0" });
  var spacer = el("div", { cls: "spacer" });
  timeline.appendChild(spacer);
  var detail = el("div", { id: "detail" });
  var side = el("div", { id: "side" });
  var tabBox = el("div", { id: "tab" });
  var rubricBox = el("div", { id: "rubric" });
  var warningsBox = el("div", { id: "warnings" });
  side.appendChild(tabBox);
  side.appendChild(rubricBox);
  side.appendChild(warningsBox);
  // --- what reading the log skipped, repaired or did not understand (each with its file and line) ---
  if (data.warnings.length) {
    warningsBox.appendChild(el("h3", { text: data.warnings.length + " reading warnings" }));
    data.warnings.forEach(function (w) {
      var where = String(w.path).split("/").pop() + (w.line === null ? "" : ":" + w.line) + (w.field ? " [" + w.field + "]" : "");
      warningsBox.appendChild(el("div", { cls: "warning", text: w.kind + " · " + where + ": " + w.reason }));
    });
  }
  app.appendChild(header);
  app.appendChild(filters);
  app.appendChild(el("div", { id: "main" }, [timeline, detail, side]));

  // --- filters ---
  function stepShows(s) {
    if (state.readsOnly && !s.reads.length) return false;
    if (state.file) {
      var hit = s.reads.some(function (r) { return r[2] === state.file; }) || s.c_in.indexOf(state.file) >= 0;
      if (!hit) return false;
    }
    return true;
  }
  function applyFilters() {
    visible = [];
    steps.forEach(function (s, k) { if (stepShows(s)) visible.push(k); });
    spacer.style.height = visible.length * ROW + "px";
    counter.textContent = visible.length + " of " + steps.length + " steps shown";
    drawRows();
    renderRubric();
  }
  fFailed.addEventListener("change", function () { state.failedOnly = fFailed.checked; applyFilters(); });
  fReads.addEventListener("change", function () { state.readsOnly = fReads.checked; applyFilters(); });
  fFile.addEventListener("change", function () { state.file = fFile.value; applyFilters(); renderDetail(); });

  // --- the timeline: only the rows in view are in the page ---
  function drawRows() {
    var top = timeline.scrollTop, h = timeline.clientHeight || 600;
    var first = Math.max(0, Math.floor(top / ROW) - 10), last = Math.min(visible.length, Math.ceil((top + h) / ROW) + 10);
    clear(spacer);
    for (var v = first; v < last; v++) {
      var s = steps[visible[v]];
      var row = el("div", { cls: "row" + (visible[v] === state.sel ? " sel" : ""), "data-step": String(s.i) }, [
        el("span", { cls: "n", text: "#" + s.i }), oneLine(s.cmd || s.tool, 70)
      ]);
      if (s.reads.length) row.appendChild(el("span", { cls: "badge read", text: s.reads.length + " read" }));
      if (s.clipped) row.appendChild(el("span", { cls: "badge clip", text: "clip" }));
      if (s.error) row.appendChild(el("span", { cls: "badge err", text: "err" }));
      if (s.kind === "tab_call") row.appendChild(el("span", { cls: "badge tab", text: "tab" }));
      row.style.top = v * ROW + "px";
      row.title = s.tool + ": " + oneLine(s.cmd, 300);
      spacer.appendChild(row);
    }
  }
  timeline.addEventListener("scroll", function () { window.requestAnimationFrame(drawRows); });
  window.addEventListener("resize", function () { window.requestAnimationFrame(drawRows); });
  spacer.addEventListener("click", function (ev) {
    var row = ev.target.closest(".row");
    if (row) select(pos[Number(row.getAttribute("data-step"))], null);
  });

  // --- one step ---
  function marked(text, spans) {
    var pts = [0, text.length];
    spans.forEach(function (sp) { pts.push(sp.start, sp.end); });
    pts = pts.filter(function (p) { return p >= 0 && p <= text.length; }).sort(function (a, b) { return a - b; });
    var pre = el("pre", { cls: "shown" });
    for (var i = 0; i + 1 < pts.length; i++) {
      var a = pts[i], b = pts[i + 1];
      if (a >= b) continue;
      var piece = text.slice(a, b), cls = [], title = [], node;
      spans.forEach(function (sp) {
        if (sp.start <= a && b <= sp.end) { cls.push(sp.kind); if (sp.title) title.push(sp.title); if (sp.file) cls.push("file"); }
      });
      if (!cls.length) { pre.appendChild(document.createTextNode(piece)); continue; }
      var isMark = cls.indexOf("read") >= 0 || cls.indexOf("cited") >= 0;
      node = el(isMark ? "mark" : "span", { cls: cls.join(" "), text: piece });
      if (title.length) node.title = title.join(" · ");
      pre.appendChild(node);
    }
    return pre;
  }
  function renderDetail() {
    var s = steps[state.sel];
    clear(detail);
    if (!s) { detail.appendChild(el("p", { cls: "note", text: "no steps" })); return; }
    detail.setAttribute("data-step", String(s.i));
    detail.appendChild(el("h2", { text: "step " + s.i + " · " + s.tool + " · " + s.kind }));
    detail.appendChild(el("pre", { cls: "cmd", text: s.cmd }));
    detail.appendChild(el("div", { cls: "meta" }, [
      el("span", { text: "logged " + fmt(s.logged) + " chars" }),
      el("span", { text: "shown " + fmt(s.shown.length) + " chars" }),
      el("span", { text: s.clipped ? "clipped" : "not clipped" }),
      el("span", { text: s.exit === null || s.exit === undefined ? "" : "exit " + s.exit }),
      el("span", { text: s.reads.length + " excerpts captured" })
    ]));
    if (!s.answered) { detail.appendChild(el("p", { cls: "note", text: "no result: the call was cut off" })); }
    var spans = [];
    s.frames.forEach(function (f) { spans.push({ start: f[0], end: f[1], kind: f[2] === "clip" ? "clip" : "frame", title: f[2] }); });
    s.reads.forEach(function (r) { spans.push({ start: r[0], end: r[1], kind: "read", title: (r[3] || "") + " " + r[2], file: state.file && r[2] === state.file }); });
    if (state.cited && state.cited.step === s.i && state.cited.start !== undefined) {
      spans.push({ start: state.cited.start, end: state.cited.end, kind: "cited", title: "cited evidence" });
    }
    detail.appendChild(el("h3", { text: "shown to the model" }));
    detail.appendChild(marked(s.shown, spans));
    if (s.status) { detail.appendChild(el("h3", { text: "status line" })); detail.appendChild(el("pre", { cls: "status", text: s.status })); }
    if (s.reply) { detail.appendChild(el("h3", { text: "tab reply" })); detail.appendChild(el("pre", { cls: "reply", text: s.reply })); }
    if (s.output !== undefined) {
      var d = el("details", null, [el("summary", { text: "as logged (" + fmt(s.output.length) + " chars)" })]);
      d.addEventListener("toggle", function () {
        if (d.open && d.childNodes.length === 1) d.appendChild(el("pre", { text: s.output }));
      });
      detail.appendChild(d);
    }
    renderTab(s);
    var m = detail.querySelector("mark.cited");
    if (m) m.scrollIntoView({ block: "center" });
  }

  // --- the tab at the step ---
  function table(rows) {
    var t = el("table");
    rows.forEach(function (r) { t.appendChild(el("tr", null, r.map(function (c) { return el("td", { text: c === null || c === undefined ? "" : String(c) }); }))); });
    return t;
  }
  function renderTab(s) {
    clear(tabBox);
    var n = s.i, k = state.sel;
    tabBox.appendChild(el("h3", { text: "tab after step " + n }));
    var reqs = data.requirements.filter(function (q) { return q.added === null || q.added <= n; });
    tabBox.appendChild(el("div", { text: "R: " + reqs.length + " requirements" }));
    tabBox.appendChild(table(reqs.slice(0, 30).map(function (q) {
      var done = q.resolved !== null && q.resolved <= n;
      return [q.id, done ? q.status : "open", oneLine(q.text, 90)];
    })));
    var log = data.log.filter(function (e) { return e.step <= n; });
    tabBox.appendChild(el("div", { text: "L: " + log.length + " read-log entries" + (log.length > 30 ? " (last 30)" : "") }));
    tabBox.appendChild(table(log.slice(-30).map(function (e) { return [e.id, "#" + e.step, e.path, e.chars + " ch"]; })));
    var cands = new Set();
    for (var j = 0; j <= k; j++) {
      steps[j].c_in.forEach(function (p) { cands.add(p); });
      steps[j].c_out.forEach(function (p) { cands.delete(p); });
    }
    var list = Array.from(cands);
    tabBox.appendChild(el("div", { text: "C: " + list.length + " candidates" + (list.length > 30 ? " (first 30)" : "") }));
    tabBox.appendChild(table(list.slice(0, 30).map(function (p) { return [p]; })));
  }

  // --- the rubric, with each failed item's label and its cited evidence ---
  function renderRubric() {
    clear(rubricBox);
    var failed = rubric.filter(function (it) { return it.passed === false; }).length;
    rubricBox.appendChild(el("h3", { text: "rubric: " + (rubric.length - failed) + " of " + rubric.length + " passed" }));
    if (!rubric.length) rubricBox.appendChild(el("p", { cls: "note", text: "no rubric attached" }));
    rubric.forEach(function (it) {
      if (state.failedOnly && it.passed !== false) return;
      var box = el("div", { cls: "item " + (it.passed === false ? "fail" : it.passed ? "pass" : ""), "data-item": String(it.index),
        "data-passed": String(it.passed) }, [
        el("div", { text: "#" + it.index + " " + (it.passed === null ? "not judged" : it.passed ? "PASS" : "FAIL") + " · " + it.text })
      ]);
      if (it.label) {
        var L = it.label;
        box.appendChild(el("div", { cls: "label", text: L.category + (L.subreason ? "/" + L.subreason : "") }));
        box.appendChild(el("div", { cls: "why", text: L.rationale }));
        L.evidence.forEach(function (ev) {
          if (ev.step === null || ev.step === undefined || pos[ev.step] === undefined) {
            box.appendChild(el("div", { cls: "note", text: "deliverable " + (ev.path || "") + ": " + oneLine(ev.excerpt, 160) }));
            return;
          }
          var a = el("a", { cls: "cite", href: "#step=" + ev.step, "data-step": String(ev.step),
            text: "step " + ev.step + (ev.path ? " · " + ev.path : "") + ": " + oneLine(ev.excerpt, 120) });
          a.addEventListener("click", function (e2) { e2.preventDefault(); select(pos[ev.step], ev); });
          box.appendChild(a);
        });
      }
      rubricBox.appendChild(box);
    });
  }

  // --- moving about ---
  function select(k, cited) {
    if (k === undefined || k < 0 || k >= steps.length) return;
    state.sel = k;
    state.cited = cited || null;
    var v = visible.indexOf(k);
    if (v >= 0) {
      var top = v * ROW;
      if (top < timeline.scrollTop || top + ROW > timeline.scrollTop + timeline.clientHeight) timeline.scrollTop = Math.max(0, top - timeline.clientHeight / 2);
    }
    drawRows();
    renderDetail();
    if (window.history && window.history.replaceState) window.history.replaceState(null, "", "#step=" + steps[k].i);
  }
  function move(delta) {
    var v = visible.indexOf(state.sel);
    if (v < 0) { v = delta > 0 ? -1 : visible.length; }
    var next = visible[Math.max(0, Math.min(visible.length - 1, v + delta))];
    if (next !== undefined) select(next, null);
  }
  var citations = [];
  rubric.forEach(function (it) {
    if (it.label) it.label.evidence.forEach(function (ev) { if (ev.step !== null && pos[ev.step] !== undefined) citations.push(ev); });
  });
  var citeAt = -1;
  document.addEventListener("keydown", function (e) {
    var t = e.target.tagName;
    if (e.key === "Escape") {
      fFailed.checked = fReads.checked = false; fFile.value = "";
      state.failedOnly = state.readsOnly = false; state.file = ""; applyFilters(); renderDetail(); e.target.blur && e.target.blur(); return;
    }
    if (t === "INPUT" || t === "SELECT" || t === "TEXTAREA" || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "j" || e.key === "ArrowDown") { move(1); e.preventDefault(); }
    else if (e.key === "k" || e.key === "ArrowUp") { move(-1); e.preventDefault(); }
    else if (e.key === "Home") { select(visible[0], null); e.preventDefault(); }
    else if (e.key === "End") { select(visible[visible.length - 1], null); e.preventDefault(); }
    else if ((e.key === "n" || e.key === "p") && citations.length) {
      citeAt = (citeAt + (e.key === "n" ? 1 : citations.length - 1)) % citations.length;
      select(pos[citations[citeAt].step], citations[citeAt]);
    } else if (e.key === "/") { fFile.focus(); e.preventDefault(); }
  });

  var m = /step=(\d+)/.exec(window.location.hash || "");
  var start = m ? Number(m[1]) : data.start_step;
  applyFilters();
  select(start !== null && start !== undefined && pos[start] !== undefined ? pos[start] : 0, null);

  // --- the index of runs ---
  function renderIndex() {
    clear(app);
    var box = el("div", { cls: "index" }, [el("h1", { text: data.runs.length + " runs" })]);
    var t = el("table", null, [el("tr", null, ["run", "benchmark", "task", "model", "arm", "steps", "warnings", "score", "failed items by label"].map(function (h) { return el("th", { text: h }); }))]);
    data.runs.forEach(function (r) {
      var labels = Object.keys(r.labels).sort().map(function (k) { return k + " " + r.labels[k]; }).join(", ");
      var score = r.score ? r.score.passed + "/" + r.score.items + (r.score.score === null ? "" : " (" + (100 * r.score.score).toFixed(1) + "%)") : "—";
      t.appendChild(el("tr", null, [
        el("td", null, [el("a", { href: r.href, text: r.id })]),
        el("td", { text: r.benchmark || "" }), el("td", { text: r.task || "" }), el("td", { text: r.model || "" }),
        el("td", { text: r.arm || "" }), el("td", { text: String(r.steps) }), el("td", { text: String(r.warnings || "") }),
        el("td", { text: score }), el("td", { text: labels })
      ]));
    });
    box.appendChild(t);
    if (data.failures.length) {
      box.appendChild(el("h3", { text: data.failures.length + " units not shown" }));
      data.failures.forEach(function (f) { box.appendChild(el("div", { cls: "note", text: f.path + ": " + f.error })); });
    }
    app.appendChild(box);
  }
})();
