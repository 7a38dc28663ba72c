// luahook's web page: live decisions, web approvals, counts. No framework,
// no build step; every text goes into the page through textContent.
"use strict";

(function () {
  const $ = (sel, root) => (root || document).querySelector(sel);
  const csrfMeta = $('meta[name="csrf-token"]');
  const csrf = csrfMeta ? csrfMeta.content : "";
  const app = $("#app");
  if (!app) return; // the login and error pages need no script
  const maxRows = parseInt(app.dataset.maxRows, 10) || 200;
  const rows = $("#decision-rows");
  const filters = $("#filters");
  const older = $("#older");
  const live = $("#live");
  const held = $("#held");

  function filterQuery() {
    const q = new URLSearchParams();
    for (const name of ["agent", "session", "verdict", "policy"]) {
      const v = filters.elements[name].value.trim();
      if (v) q.set(name, v);
    }
    return q;
  }

  // ---- decisions ----
  function rowFor(e) {
    const tr = $("#row-template").content.firstElementChild.cloneNode(true);
    tr.dataset.seq = e.seq;
    const a = $(".seq a", tr);
    a.href = "/ui/decisions/" + e.seq;
    a.textContent = e.seq;
    $(".time", tr).textContent = new Date(e.time).toISOString().slice(11, 19);
    $(".agent", tr).textContent = e.agent || "";
    $(".session", tr).textContent = e.session || "";
    $(".event", tr).textContent = e.event || "";
    $(".tool", tr).textContent = e.tool || "";
    const v = $(".v", tr);
    v.textContent = e.verdict || "";
    v.className = "v v-" + (e.verdict || "none");
    $(".by", tr).textContent = e.decidedBy || "";
    $(".reason", tr).textContent = e.reason || "";
    return tr;
  }

  // New decisions are put in the table once per frame, however fast they
  // come: a flood costs one layout per frame, and the table never holds
  // more than maxRows rows.
  let queued = [];
  let frame = 0;
  function queue(e) {
    queued.push(e);
    if (queued.length > maxRows) queued = queued.slice(-maxRows);
    if (!frame) frame = requestAnimationFrame(flush);
  }
  function topSeq() {
    const first = rows.rows[0];
    return first ? Number(first.dataset.seq) : 0;
  }
  function flush() {
    frame = 0;
    // Only what is newer than the table's top: a reload of the table may
    // have shown the rest already.
    const top = topSeq();
    const frag = document.createDocumentFragment();
    for (let i = queued.length - 1; i >= 0; i--) if (queued[i].seq > top) frag.appendChild(rowFor(queued[i]));
    queued = [];
    rows.insertBefore(frag, rows.firstChild);
    while (rows.rows.length > maxRows) rows.deleteRow(-1);
    if (rows.rows.length >= maxRows) older.hidden = false;
    countsSoon();
  }

  async function load(before) {
    const q = filterQuery();
    if (before) q.set("before", before);
    const res = await fetch("/ui/api/decisions?" + q, { credentials: "same-origin" });
    if (!res.ok) return;
    const body = await res.json();
    if (!before) {
      rows.textContent = "";
      const newest = body.decisions.length ? body.decisions[0].seq : 0;
      queued = queued.filter((e) => e.seq > newest);
    }
    const frag = document.createDocumentFragment();
    for (const e of body.decisions) frag.appendChild(rowFor(e));
    rows.appendChild(frag);
    older.hidden = !body.more;
    if (held) held.textContent = body.held + " in the window";
  }

  older.addEventListener("click", () => {
    const last = rows.rows[rows.rows.length - 1];
    if (last) load(last.dataset.seq);
  });

  filters.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = filterQuery();
    history.replaceState(null, "", "/ui/" + (q.toString() ? "?" + q : ""));
    // The stream of the old filter ends before anything of the new one is
    // shown, and what it had queued goes with it; the new stream starts
    // before the table is fetched, so nothing decided in between is missed
    // (what the fetch shows already is dropped from the queue).
    if (source) source.close();
    queued = [];
    connect();
    load();
  });

  // ---- approvals ----
  const list = $("#approvals");
  function countApprovals() {
    const n = list.children.length;
    $("#approvals-count").textContent = n;
    $("#approvals-empty").hidden = n > 0;
  }
  function approvalFor(p) {
    const li = $("#approval-template").content.firstElementChild.cloneNode(true);
    li.dataset.id = p.id;
    li.dataset.digest = p.digest;
    $(".tool", li).textContent = p.tool;
    $(".agent", li).textContent = p.agent || "";
    $(".session", li).textContent = p.session || "";
    const reasons = $(".reasons", li);
    for (const r of p.reasons || []) {
      const item = document.createElement("li");
      item.textContent = r;
      reasons.appendChild(item);
    }
    $(".input", li).textContent = p.input === undefined ? "(" + p.inputBytes + " bytes, too large to show)" : JSON.stringify(p.input, null, 2);
    $(".approvers", li).textContent = p.approvers && p.approvers.length ? "approvers: " + p.approvers.join(", ") : "anyone logged in may decide";
    $(".deadline", li).textContent = "until " + new Date(p.deadline).toISOString().slice(11, 19);
    $(".replica", li).textContent = p.instance ? "waiting on " + p.instance : "";
    return li;
  }
  function findApproval(id) {
    for (const li of list.children) if (li.dataset.id === id) return li;
    return null;
  }
  function onApproval(ev) {
    const p = ev.approval;
    const li = findApproval(p.id);
    if (ev.kind === "pending") {
      if (!li) list.appendChild(approvalFor(p));
    } else if (li) {
      li.remove();
    }
    countApprovals();
  }
  async function reloadApprovals() {
    const res = await fetch("/ui/api/approvals", { credentials: "same-origin" });
    if (!res.ok) return;
    const body = await res.json();
    list.textContent = "";
    for (const p of body.approvals) list.appendChild(approvalFor(p));
    countApprovals();
  }
  list.addEventListener("click", async (ev) => {
    const btn = ev.target.closest("button");
    if (!btn) return;
    const li = btn.closest("li.approval");
    const verdict = btn.classList.contains("approve") ? "approve" : btn.classList.contains("deny") ? "deny" : "";
    if (!verdict || !li) return;
    for (const b of li.querySelectorAll("button")) b.disabled = true;
    const result = $(".result", li);
    result.textContent = "sending…";
    const res = await fetch("/ui/api/approvals/" + encodeURIComponent(li.dataset.id), {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ verdict: verdict, reason: $(".decide-reason", li).value, digest: li.dataset.digest }),
    });
    let body = {};
    try { body = await res.json(); } catch (e) { /* not JSON */ }
    if (res.ok) {
      result.textContent = (body.approved ? "approved" : "denied") + " by " + (body.by || "you");
      li.classList.add("done");
      setTimeout(() => { li.remove(); countApprovals(); }, 800);
    } else {
      result.textContent = body.error || ("refused: " + res.status);
      result.classList.add("error");
      for (const b of li.querySelectorAll("button")) b.disabled = false;
    }
  });

  // ---- counts ----
  const svgNS = "http://www.w3.org/2000/svg";
  // The chart follows the decisions that arrive, redrawn at most every
  // 3 s however many arrive.
  let countsTimer = 0;
  function countsSoon() {
    if (!countsTimer) countsTimer = setTimeout(() => { countsTimer = 0; drawCounts(); }, 3000);
  }
  async function drawCounts() {
    const res = await fetch("/ui/api/counts", { credentials: "same-origin" });
    if (!res.ok) return;
    const c = await res.json();
    if (held && typeof c.held === "number") held.textContent = c.held + " in the window";
    const svg = $("#chart");
    svg.textContent = "";
    const mins = c.minutes || [];
    let top = 1;
    for (const m of mins) top = Math.max(top, m.decisions);
    const w = 600 / Math.max(mins.length, 1);
    mins.forEach((m, i) => {
      for (const [n, cls] of [[m.decisions, "bar decisions"], [m.denials, "bar denials"]]) {
        if (!n) continue;
        const r = document.createElementNS(svgNS, "rect");
        const h = Math.max(1, (n / top) * 112);
        r.setAttribute("x", (i * w + 0.5).toFixed(1));
        r.setAttribute("y", (120 - h).toFixed(1));
        r.setAttribute("width", Math.max(w - 1, 1).toFixed(1));
        r.setAttribute("height", h.toFixed(1));
        r.setAttribute("class", cls);
        const t = document.createElementNS(svgNS, "title");
        t.textContent = new Date(m.start).toISOString().slice(11, 16) + ": " + m.decisions + " decisions, " + m.denials + " denials";
        r.appendChild(t);
        svg.appendChild(r);
      }
    });
    const ol = $("#top-rules");
    ol.textContent = "";
    for (const r of c.topRules || []) {
      const li = document.createElement("li");
      const name = document.createElement("span");
      name.className = "rule";
      name.textContent = r.name;
      const n = document.createElement("span");
      n.className = "n";
      n.textContent = " " + r.denials;
      li.append(name, n);
      ol.appendChild(li);
    }
    if (!ol.children.length) {
      const li = document.createElement("li");
      li.className = "muted";
      li.textContent = "none yet";
      ol.appendChild(li);
    }
  }

  // ---- the live stream ----
  // A stream that missed events asks for the lists again: once for a run
  // of such notices, not once each.
  let resyncing = 0;
  function resync() {
    if (resyncing) return;
    resyncing = setTimeout(() => { resyncing = 0; load(); reloadApprovals(); }, 250);
  }
  let source = null;
  function connect() {
    if (source) source.close();
    source = new EventSource("/ui/events?" + filterQuery());
    source.addEventListener("hello", () => { live.classList.add("on"); document.body.dataset.live = "on"; });
    source.addEventListener("decision", (m) => queue(JSON.parse(m.data)));
    source.addEventListener("approval", (m) => onApproval(JSON.parse(m.data)));
    source.addEventListener("resync", resync);
    source.addEventListener("bye", () => { source.close(); live.classList.remove("on"); document.body.dataset.live = "off"; });
    source.onerror = () => { live.classList.remove("on"); document.body.dataset.live = "off"; };
  }

  connect();
  drawCounts();
  setInterval(drawCounts, 30000);
})();
