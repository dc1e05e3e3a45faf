// hlotool view: the interactive page of one module. No network: everything is inline.
// The model (computations, laid-out nodes) comes from hlotool/graph/page.py.
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  const M = JSON.parse(document.getElementById("model").textContent);
  const NW = 168, NH = 40, GX = 22, GY = 34, PAD = 12, HEAD = 20;
  const DIFF = { "added": "#2e7d32", "fused into": "#1565c0", "changed": "#ef6c00" };
  const comps = M.computations;

  // -- indexes --------------------------------------------------------------------------
  const callerOf = {};   // computation -> [caller computation, caller index]
  for (const [cn, c] of Object.entries(comps)) {
    c.users = c.nodes.map(() => []);
    c.nodes.forEach((n, i) => {
      n.a.forEach((j) => c.users[j].push(i));
      (n.c || []).forEach((sub) => { if (!(sub in callerOf)) callerOf[sub] = [cn, i]; });
    });
  }
  const expanded = new Set();   // "computation/index" of expanded callers
  let placed = [], edges = [], selected = null;
  const view = { x: 0, y: 0, k: 1 };

  // -- page -----------------------------------------------------------------------------
  document.body.insertAdjacentHTML("beforeend", `
    <div id="bar"><b></b><input id="q" placeholder="search name, opcode or op_name (/)">
      <button id="fit">fit</button><button id="root">ROOT</button>
      <button id="collapse">collapse all</button><span class="legend"></span>
      <span id="stat"></span></div>
    <div id="main"><div id="canvas"><svg><g id="vp"></g></svg><div id="tip"></div></div>
      <div id="panel"></div></div>`);
  const $ = (s) => document.querySelector(s);
  $("#bar b").textContent = `${M.module} · ${M.instructions} instructions`;
  if (M.diff) {
    $("#bar .legend").innerHTML = `diff from ${esc(M.diffFrom)}: ` + Object.entries(M.diff)
      .map(([k, v]) => `<span style="background:${DIFF[k] ? DIFF[k] + "55" : "#eee"}">` +
           `${esc(k)} ${v}</span>`).join("");
  }
  const svg = $("svg"), vp = $("#vp"), canvas = $("#canvas"), tip = $("#tip");

  function esc(s) {
    return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;",
                                                    '"': "&quot;" }[c]));
  }
  function num(x) { return Math.round(x).toLocaleString("en-US"); }
  function bytes(x) {
    const u = ["B", "KiB", "MiB", "GiB"]; let i = 0;
    while (x >= 1024 && i < 3) { x /= 1024; i++; }
    return (i ? x.toFixed(1) : x) + " " + u[i];
  }

  // -- layout: Python gave layers and orders; boxes grow with what is expanded ------------
  function layoutComp(cn) {
    const c = comps[cn], layers = [];
    c.nodes.forEach((n, i) => { (layers[n.L] = layers[n.L] || []).push(i); });
    const boxes = new Array(c.nodes.length), rows = [];
    let y = 0, width = 0;
    for (const layer of layers) {
      if (!layer) continue;
      layer.sort((a, b) => c.nodes[a].P - c.nodes[b].P);
      let x = 0, hmax = 0;
      for (const i of layer) {
        const n = c.nodes[i], key = cn + "/" + i;
        let w = NW, h = NH, inner = null;
        if (n.c && expanded.has(key)) {
          inner = n.c.filter((s) => comps[s]).map(layoutComp);
          w = Math.max(NW, inner.reduce((s, L) => s + L.w + PAD, PAD));
          h = HEAD + PAD + Math.max(0, ...inner.map((L) => L.h)) + PAD;
        }
        boxes[i] = { cn, i, x, y, w, h, inner };
        x += w + GX; hmax = Math.max(hmax, h);
      }
      rows.push([layer, x - GX]);
      width = Math.max(width, x - GX);
      y += hmax + GY;
    }
    for (const [layer, w] of rows) for (const i of layer) boxes[i].x += (width - w) / 2;
    return { cn, w: width, h: Math.max(0, y - GY), boxes };
  }

  function place(L, ox, oy, depth) {
    const local = [];
    for (const b of L.boxes) {
      if (!b) continue;
      const p = { cn: b.cn, i: b.i, X: ox + b.x, Y: oy + b.y, w: b.w, h: b.h,
                  open: !!b.inner, depth, n: comps[b.cn].nodes[b.i] };
      p.k = placed.length; placed.push(p); local[b.i] = p;
      if (b.inner) {
        let ix = p.X + PAD;
        for (const inner of b.inner) { place(inner, ix, p.Y + HEAD + PAD, depth + 1); ix += inner.w + PAD; }
      }
    }
    for (const p of local) if (p) for (const j of p.n.a) if (local[j]) edges.push([local[j], p]);
  }

  let total = { w: 0, h: 0 };
  function relayout() {
    placed = []; edges = [];
    const L = layoutComp(M.entry);
    total = { w: L.w, h: L.h };
    place(L, 0, 0, 0);
  }

  // -- drawing: only what is in view --------------------------------------------------------
  let pending = false;
  function schedule() { if (!pending) { pending = true; requestAnimationFrame(draw); } }
  function visibleRect() {
    const r = canvas.getBoundingClientRect(), m = 200 / view.k;
    return [-view.x / view.k - m, -view.y / view.k - m,
            (r.width - view.x) / view.k + m, (r.height - view.y) / view.k + m];
  }
  function inView(p, v) { return p.X < v[2] && p.X + p.w > v[0] && p.Y < v[3] && p.Y + p.h > v[1]; }

  function draw() {
    pending = false;
    vp.setAttribute("transform", `translate(${view.x},${view.y}) scale(${view.k})`);
    const v = visibleRect(), parts = [], boxes = [], shown = new Set();
    const sel = selected, opd = new Set(), usr = new Set();
    if (sel) {
      sel.n.a.forEach((j) => opd.add(sel.cn + "/" + j));
      comps[sel.cn].users[sel.i].forEach((j) => usr.add(sel.cn + "/" + j));
    }
    const detail = view.k > 0.35;
    for (const p of placed) {
      if (!inView(p, v)) continue;
      shown.add(p);
      const n = p.n, key = p.cn + "/" + p.i;
      if (p.open) {
        boxes.push(`<g class="cluster${comps[n.c[0]] && comps[n.c[0]].fusion ? " fusion" : ""}" ` +
          `data-k="${p.k}" data-name="${esc(n.n)}"><rect x="${p.X}" y="${p.Y}" width="${p.w}" ` +
          `height="${p.h}"/><text x="${p.X + 6}" y="${p.Y + 14}">⊖ ${esc(n.n)} · ` +
          `${esc((n.c || []).join(", "))}</text></g>`);
        continue;
      }
      let cls = "node";
      if (n.c) cls += " callee";
      if (sel && sel === p) cls += " sel";
      else if (sel && p.cn === sel.cn && opd.has(key)) cls += " opd";
      else if (sel && p.cn === sel.cn && usr.has(key)) cls += " usr";
      if (n.d === "unchanged") cls += " dim";
      const marked = / (sel|opd|usr)/.test(cls);  // the selection's colours win over the diff's
      const stroke = n.d && DIFF[n.d] && !marked ? ` style="stroke:${DIFF[n.d]};stroke-width:3"` : "";
      let text = "";
      if (detail) {
        text = `<text class="name" x="${p.X + 6}" y="${p.Y + 15}" fill="${n.font}">` +
          `${n.c ? "⊕ " : ""}${esc(n.n.length > 24 ? n.n.slice(0, 23) + "…" : n.n)}</text>` +
          `<text x="${p.X + 6}" y="${p.Y + 31}" fill="${n.font}">${esc(n.o)} ` +
          `${esc(n.s.length > 20 ? n.s.slice(0, 19) + "…" : n.s)}</text>`;
      }
      parts.push(`<g class="${cls}" data-k="${p.k}" data-name="${esc(n.n)}"><rect x="${p.X}" ` +
        `y="${p.Y}" width="${p.w}" height="${p.h}" fill="${n.fill}"${stroke}/>${text}</g>`);
    }
    const ep = [];
    for (const [a, b] of edges) {
      if (!shown.has(a) && !shown.has(b)) continue;
      const x1 = a.X + a.w / 2, y1 = a.Y + a.h, x2 = b.X + b.w / 2, y2 = b.Y, my = (y1 + y2) / 2;
      const hot = sel === b ? " hot-in" : sel === a ? " hot-out" : "";
      ep.push(`<path class="edge${hot}" d="M${x1},${y1}C${x1},${my} ${x2},${my} ${x2},${y2}"/>`);
    }
    vp.innerHTML = boxes.join("") + ep.join("") + parts.join("");  // clusters under edges
    $("#stat").textContent = `${shown.size} of ${placed.length} boxes in view · zoom ${view.k.toFixed(2)}`;
  }

  // -- navigation -------------------------------------------------------------------------
  function centerOn(p, k) {
    const r = canvas.getBoundingClientRect();
    if (k) view.k = k;
    view.x = r.width / 2 - (p.X + p.w / 2) * view.k;
    view.y = r.height / 2 - (p.Y + p.h / 2) * view.k;
    schedule();
  }
  function fit() {
    const r = canvas.getBoundingClientRect();
    view.k = Math.min(2, Math.max(0.01, Math.min(r.width / (total.w + 40), r.height / (total.h + 40))));
    view.x = (r.width - total.w * view.k) / 2; view.y = 20;
    schedule();
  }
  function rootBox() { return placed.find((p) => p.cn === M.entry && p.n.root) || placed[0]; }
  function boxOf(cn, i) { return placed.find((p) => p.cn === cn && p.i === i); }

  function toggle(p) {
    if (!p || !p.n.c) return;
    const key = p.cn + "/" + p.i, cn = p.cn, i = p.i;
    if (expanded.has(key)) expanded.delete(key); else expanded.add(key);
    relayout();
    const q = boxOf(cn, i);
    if (q) { select(q); centerOn(q); }
    return q;
  }

  function reveal(cn, i) {
    let c = cn;
    while (c !== M.entry && callerOf[c]) { const [pc, pi] = callerOf[c]; expanded.add(pc + "/" + pi); c = pc; }
    relayout();
    const p = boxOf(cn, i);
    if (p) { select(p); centerOn(p, Math.max(view.k, 0.8)); }
    return p;
  }

  function select(p) {
    selected = p;
    const panel = $("#panel");
    if (!p) { panel.innerHTML = help(); schedule(); return; }
    const n = p.n, c = comps[p.cn];
    const link = (j) => `<a data-go="${esc(p.cn)}/${j}">${esc(c.nodes[j].n)}</a>`;
    const rows = [["opcode", esc(n.o)], ["shape", esc(n.s)], ["computation", esc(p.cn)],
      ["flops", num(n.f)], ["bytes accessed", num(n.b) + " (" + bytes(n.b) + ")"],
      ["output bytes", num(n.m) + " (" + bytes(n.m) + ")"],
      ["flops/byte", n.b ? (n.f / n.b).toFixed(2) : "-"]];
    if (n.op) rows.push(["op_name", esc(n.op)]);
    if (n.d) rows.push(["diff", esc(n.d) + (n.dn && n.dn !== n.d ? " (" + esc(n.dn) + ")" : "")]);
    if (n.c) rows.push(["calls", n.c.map((s) => `<a data-toggle="${p.k}">${esc(s)}</a>`).join(", ") +
                        (p.open ? " (expanded; double-click to collapse)" : " (double-click to expand)")]);
    rows.push(["operands", n.a.map(link).join(", ") || "-"]);
    rows.push(["users", c.users[p.i].map(link).join(", ") || "-"]);
    panel.innerHTML = `<h3>${esc(n.n)}</h3><table>` +
      rows.map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join("") +
      `</table><pre>${esc(n.t)}</pre>`;
    schedule();
  }

  function help() {
    return `<h3>${esc(M.module)}</h3><p>Drag to pan, wheel to zoom. Click an op for its text, ` +
      `cost and bytes; its operands are outlined blue, its users green. Double-click a ` +
      `fusion, call or loop (⊕) to expand it in place. <b>/</b> searches names, opcodes and ` +
      `op_names.</p>` + (M.diff ? `<p>Colours: what changed since ${esc(M.diffFrom)}.</p>` : "");
  }

  function search(q) {
    q = q.trim().toLowerCase();
    const out = [];
    if (!q) return out;
    for (const [cn, c] of Object.entries(comps)) {
      c.nodes.forEach((n, i) => {
        if (n.n.toLowerCase().includes(q) || n.o === q ||
            (n.op && n.op.toLowerCase().includes(q))) out.push([cn, i]);
      });
    }
    out.sort((a, b) => (comps[a[0]].nodes[a[1]].n.toLowerCase() === q ? 0 : 1) -
                       (comps[b[0]].nodes[b[1]].n.toLowerCase() === q ? 0 : 1));
    return out;  // exact names first, then in module order
  }
  function showResults(q) {
    const found = search(q);
    $("#panel").innerHTML = `<h3>${found.length} matches for ` +
      `“${esc(q)}”</h3><div class="results">` + found.slice(0, 200).map(([cn, i]) =>
        `<a data-go="${esc(cn)}/${i}">${esc(comps[cn].nodes[i].n)} <small>${esc(comps[cn].nodes[i].o)}` +
        ` · ${esc(cn)}</small></a>`).join("") + "</div>";
    if (found.length) reveal(...found[0]);
    return found;
  }

  // -- events -----------------------------------------------------------------------------
  function boxAt(e) {
    const g = e.target.closest && e.target.closest("[data-k]");
    return g ? placed[+g.getAttribute("data-k")] : null;
  }
  let drag = null;
  canvas.addEventListener("mousedown", (e) => { drag = [e.clientX, e.clientY, view.x, view.y, false]; canvas.classList.add("drag"); });
  window.addEventListener("mouseup", () => { drag = null; canvas.classList.remove("drag"); });
  window.addEventListener("mousemove", (e) => {
    if (drag) {
      const dx = e.clientX - drag[0], dy = e.clientY - drag[1];
      if (Math.abs(dx) + Math.abs(dy) > 3) drag[4] = true;
      view.x = drag[2] + dx; view.y = drag[3] + dy; schedule(); return;
    }
    const p = boxAt(e);
    if (!p) { tip.style.display = "none"; return; }
    const r = canvas.getBoundingClientRect();
    tip.textContent = p.n.t + (p.n.op ? "\nop_name: " + p.n.op : "");
    tip.style.left = Math.min(e.clientX - r.left + 14, r.width - 300) + "px";
    tip.style.top = (e.clientY - r.top + 14) + "px";
    tip.style.display = "block";
  });
  canvas.addEventListener("click", (e) => { if (drag && drag[4]) return; const p = boxAt(e); select(p); });
  canvas.addEventListener("dblclick", (e) => { const p = boxAt(e); if (p) toggle(p); });
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const r = canvas.getBoundingClientRect(), mx = e.clientX - r.left, my = e.clientY - r.top;
    const k = Math.min(4, Math.max(0.01, view.k * Math.exp(-e.deltaY * 0.0015)));
    view.x = mx - (mx - view.x) * k / view.k; view.y = my - (my - view.y) * k / view.k; view.k = k;
    schedule();
  }, { passive: false });
  $("#panel").addEventListener("click", (e) => {
    const go = e.target.closest("[data-go]"), tg = e.target.closest("[data-toggle]");
    if (go) { const s = go.getAttribute("data-go"), at = s.lastIndexOf("/"); reveal(s.slice(0, at), +s.slice(at + 1)); }
    if (tg) toggle(placed[+tg.getAttribute("data-toggle")]);
  });
  let timer = 0;
  $("#q").addEventListener("input", (e) => { clearTimeout(timer); timer = setTimeout(() => showResults(e.target.value), 250); });
  $("#q").addEventListener("keydown", (e) => { if (e.key === "Enter") showResults(e.target.value); });
  $("#fit").onclick = fit;
  $("#root").onclick = () => centerOn(rootBox(), 1);
  $("#collapse").onclick = () => { expanded.clear(); relayout(); centerOn(rootBox(), 1); };
  window.addEventListener("resize", schedule);
  window.addEventListener("keydown", (e) => {
    if (e.target === $("#q")) { if (e.key === "Escape") e.target.blur(); return; }
    if (e.key === "/") { e.preventDefault(); $("#q").focus(); }
    if (e.key === "Escape") select(null);
    if (e.key === "Enter" && selected) toggle(selected);
  });

  // -- start ------------------------------------------------------------------------------
  relayout();
  select(null);
  centerOn(rootBox(), 1);
  draw();
  const ready = performance.now();

  // The page's API, used by the browser test (and handy from the console).
  window.hlotoolView = { model: M, placed: () => placed, reveal, toggle, search, boxOf,
    select, expanded, draw, readyMs: ready };

  if (/[?&]selftest\b/.test(location.search)) selftest();

  function selftest() {
    const out = { readyMs: ready, boxes: placed.length };
    const entry = comps[M.entry];
    const fi = entry.nodes.findIndex((n) => n.o === "fusion");
    if (fi >= 0) {
      const t = performance.now();
      const p = toggle(boxOf(M.entry, fi));
      draw();
      const sub = entry.nodes[fi].c[0];
      out.expanded = { fusion: entry.nodes[fi].n, computation: sub, ms: performance.now() - t,
        innerBoxes: placed.filter((q) => q.cn === sub).length,
        innerInDom: [...vp.querySelectorAll("[data-name]")].filter((g) =>
          comps[sub].nodes.some((n) => n.n === g.getAttribute("data-name"))).length,
        open: !!(p && p.open) };
    }
    const m = /[?&]find=([^&]+)/.exec(location.search);
    const name = m ? decodeURIComponent(m[1]) : entry.nodes[entry.nodes.length - 1].n;
    const t = performance.now();
    const hits = search(name);
    const p = hits.length ? reveal(...hits[0]) : null;
    draw();
    out.find = { name, hits: hits.length, selected: selected ? selected.n.n : null,
      computation: p ? p.cn : null, ms: performance.now() - t,
      inDom: !!vp.querySelector(`[data-name="${CSS.escape(name)}"]`),
      panel: $("#panel h3") ? $("#panel h3").textContent : "" };
    const pre = document.createElement("pre");
    pre.id = "selftest"; pre.style.display = "none";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }
})();
