// nagger ui: renders each page from the JSON endpoints and polls a cheap change marker,
// re-rendering the page when the database changed. No libraries; charts are inline SVG.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const RESULTS = ["none", "context", "deny", "ask", "block", "error"];
const POLL_MS = 2000;

// The token `nagger ui` printed comes in the address's fragment (`#token=…`, never sent to
// any server) or, from older addresses, its query. It is kept in this tab's session storage
// (which no other port or site can read), taken out of the address bar, and sent in a
// header with each request for data.
const TOKEN = (() => {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
  const query = new URLSearchParams(location.search);
  const given = fromHash || query.get("token");
  if (given) {
    try { sessionStorage.setItem("nagger-token", given); } catch (e) { /* storage off: kept in memory */ }
    query.delete("token");
    const rest = query.toString();
    history.replaceState(null, "", location.pathname + (rest ? "?" + rest : ""));
    return given;
  }
  try { return sessionStorage.getItem("nagger-token") || ""; } catch (e) { return ""; }
})();
const params = new URLSearchParams(location.search);

// ── small helpers ──

/** An HTML element: h("td", {class: "num"}, "12"). */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** An SVG element. */
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined && v !== false) el.setAttribute(k, v);
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

async function api(path) {
  const res = await fetch("/api/" + path, {
    credentials: "omit",
    cache: "no-store",
    headers: { "X-Nagger-Token": TOKEN },
  });
  if (res.status === 403 && !TOKEN) {
    throw new Error("no token: open the address `nagger ui` printed");
  }
  const body = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw new Error(body.error || res.statusText);
  const stale = res.headers.get("X-Nagger-Stale-Ms");
  staleMs = stale === null ? null : Number(stale);
  return body;
}

/** Age of the last answer when the database was busy and an earlier read was shown. */
let staleMs = null;

function pad(n, w = 2) { return String(n).padStart(w, "0"); }

function clock(ms) {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function dateTime(ms) {
  if (!ms) return "";
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock(ms)}`;
}

function duration(ms) {
  if (ms === null || ms === undefined) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const sec = ms / 1000;
  if (sec < 60) return `${sec.toFixed(1)} s`;
  if (sec < 3600) return `${Math.floor(sec / 60)}m ${Math.round(sec % 60)}s`;
  return `${Math.floor(sec / 3600)}h ${Math.round((sec % 3600) / 60)}m`;
}

function ago(ms, now) { return duration(Math.max(0, now - ms)) + " ago"; }

function num(n) { return n === null || n === undefined ? "" : Number(n).toLocaleString("en-US"); }

function ms(v) { return v === null || v === undefined ? "–" : `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms`; }

function short(id, n = 10) { return id && id.length > n ? id.slice(0, n) + "…" : id || ""; }

function resultBadge(r) { return h("span", { class: `badge r-${RESULTS.includes(r) ? r : "none"}` }, r); }

/** Why a rule or guard check fired, edged in its decision's colour (refused or asked). */
function reasonCell(x) {
  const decision = RESULTS.includes(x.decision) ? x.decision : "none";
  return td(x.reason || "", `reason wrap r-${decision}`);
}

function table(headers, rows) {
  const head = h("tr", {}, headers.map(([label, cls]) => h("th", { class: cls }, label)));
  return h("table", {}, h("thead", {}, head), h("tbody", {}, rows));
}

function td(content, cls) { return h("td", { class: cls }, content); }

function panel(...children) { return h("div", { class: "panel" }, children); }

function card(value, label) { return h("div", { class: "card" }, h("div", { class: "v" }, value), h("div", { class: "k" }, label)); }

function sessionLink(id, text) {
  return h("a", { href: "/timeline?session=" + encodeURIComponent(id), title: id }, text || id);
}

function sessionStatus(sess, now) {
  if (sess.ended_at) return h("span", { class: "badge ended" }, "ended");
  // A session nagger heard from in the last ten minutes is live.
  return now - sess.last_seen_at < 600000
    ? h("span", { class: "badge live" }, "live")
    : h("span", { class: "badge idle" }, "idle");
}

function legend() {
  return h("div", { class: "legend" },
    RESULTS.map((r) => h("span", {}, h("i", { class: "dot-" + r }), r)),
    h("span", {}, h("i", { class: "line" }), "exact link (transcript)"),
    h("span", {}, h("i", { class: "line dashed" }), "matched spawn"),
    h("span", {}, h("i", { class: "bar" }), "agent running → stopped"));
}

// ── pages ──

async function sessionsPage() {
  const { now, sessions } = await api("sessions");
  const rows = sessions.map((x) => h("tr", {},
    td([sessionStatus(x, now), x.ended_at ? h("div", { class: "small muted" }, x.end_reason || "") : null]),
    td([sessionLink(x.session_id, short(x.session_id, 18)), h("div", { class: "small muted" }, x.cwd || "")], "mono"),
    td(dateTime(x.started_at), "nowrap"),
    td(ago(x.last_seen_at, now), "nowrap"),
    td(x.source || ""),
    td(num(x.compactions), "num"),
    td(x.agents_running ? `${x.agents_running} running, ${x.agents_finished} done` : `${x.agents_finished} done`, "nowrap"),
    td(num(x.hook_runs), "num"),
    td(num(x.denied), "num"),
    td(num(x.asked), "num"),
    td(num(x.blocked), "num"),
    td(num(x.errors), "num")));
  return [
    h("h1", {}, "Sessions"),
    panel(sessions.length
      ? table([["status"], ["session"], ["started"], ["last seen"], ["source"], ["compactions", "num"],
        ["agents"], ["hook runs", "num"], ["deny", "num"], ["ask", "num"], ["block", "num"], ["errors", "num"]], rows)
      : h("p", { class: "muted" }, "No session yet: nagger records one when Claude Code starts with its hooks installed.")),
  ];
}

/** Lanes of the timeline: the main agent, then each subagent by start. */
function lanesOf(t) {
  const lanes = [{ id: null, title: "main agent", sub: "session " + short(t.session.session_id, 16), main: true }];
  const byId = new Map();
  for (const a of t.agents) {
    const lane = {
      id: a.agent_id, agent: a,
      title: a.role && a.role !== a.agent_type ? `${a.agent_type} · ${a.role}` : a.agent_type,
      sub: [`role source: ${a.role_source || "unknown"}`, a.tokens !== null ? `${num(a.tokens)} tokens` : null]
        .filter(Boolean).join(" · "),
    };
    lanes.push(lane);
    byId.set(a.agent_id, lane);
  }
  // Runs of agents nagger never registered still get a lane.
  for (const r of t.runs) {
    if (r.agent_id && !byId.has(r.agent_id)) {
      const lane = { id: r.agent_id, title: "agent " + short(r.agent_id, 12), sub: "not registered" };
      lanes.push(lane);
      byId.set(r.agent_id, lane);
    }
  }
  return { lanes, byId };
}

function isCompaction(r) {
  return r.event === "PreCompact" ||
    (r.event === "SessionStart" && /"source"\s*:\s*"compact"/.test(r.details || ""));
}

function timelineChart(t, width) {
  const { lanes, byId } = lanesOf(t);
  const times = [t.session.started_at, t.session.last_seen_at, ...t.runs.map((r) => r.timestamp),
    ...t.agents.flatMap((a) => [a.started_at, a.stopped_at || a.started_at]),
    ...t.spawns.map((x) => x.created_at)].filter((v) => v);
  // The axis spans the session itself, however short, with a little room at both ends.
  const t0 = Math.min(...times);
  const t1 = Math.max(...times, t0 + 1);
  const pad = (t1 - t0) * 0.02;
  const left = 270, right = 24, top = 30, laneH = 44;
  const height = top + lanes.length * laneH + 10;
  const x = (ms) => left + ((ms - t0 + pad) / (t1 - t0 + 2 * pad)) * (width - left - right);
  const laneY = (i) => top + i * laneH + laneH / 2;
  const svg = s("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "session timeline" });

  lanes.forEach((lane, i) => {
    svg.append(s("rect", { class: "lane-bg" + (i % 2 ? " odd" : ""), x: 0, y: top + i * laneH, width, height: laneH }));
  });
  // Time axis: about eight ticks at round steps.
  const steps = [1, 2, 5, 10, 20, 50, 100, 250, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 144e5, 432e5, 864e5];
  const step = steps.find((st) => (t1 - t0) / st <= 8) || 864e5;
  // Short spans count from the start; long ones show clock times at round steps.
  const first = t1 - t0 < 600000 ? t0 : Math.ceil(t0 / step) * step;
  for (let tick = first; tick <= t1; tick += step) {
    const tx = x(tick);
    if (tx > width - right - 24) break; // no label cut at the edge
    svg.append(s("line", { class: "grid", x1: tx, x2: tx, y1: top - 4, y2: height - 10 }));
    const label = t1 - t0 < 600000 ? "+" + duration(tick - t0) : clock(tick);
    svg.append(s("text", { class: "axis", x: tx, y: top - 10, "text-anchor": "middle" }, label));
  }
  svg.append(s("text", { class: "axis", x: 8, y: top - 10 }, dateTime(t0)));

  lanes.forEach((lane, i) => {
    const y = laneY(i);
    svg.append(s("text", { class: "lane-label", x: 10, y: y - 3 }, lane.title));
    svg.append(s("text", { class: "lane-sub", x: 10, y: y + 12 }, lane.sub));
    if (lane.main) {
      svg.append(s("rect", { class: "bar main", x: x(t.session.started_at || t0), y: y - 7, width: Math.max(2, x(t.session.ended_at || t1) - x(t.session.started_at || t0)), height: 14, rx: 3 }));
    } else if (lane.agent) {
      const a = lane.agent;
      const end = a.stopped_at || t1;
      svg.append(s("rect", { class: "bar" + (a.stopped_at ? "" : " running"), x: x(a.started_at), y: y - 7, width: Math.max(3, x(end) - x(a.started_at)), height: 14, rx: 3 },
        s("title", {}, `${lane.title}\n${a.agent_id}\nrole source: ${a.role_source || "unknown"}\n${dateTime(a.started_at)} → ${a.stopped_at ? dateTime(a.stopped_at) : "running"}`)));
    }
  });

  // Spawns on the main lane, linked to the agent they started.
  const mainY = laneY(0);
  for (const sp of t.spawns) {
    const agentId = sp.linked_agent_id || sp.matched_agent_id;
    const sx = x(sp.created_at);
    const lane = agentId && byId.get(agentId);
    if (lane) {
      const ly = laneY(lanes.indexOf(lane));
      const ax = x(lane.agent ? lane.agent.started_at : sp.created_at);
      const exact = !!sp.linked_agent_id;
      svg.append(s("path", { class: "link" + (exact ? "" : " matched"), d: `M${sx},${mainY} C${sx},${(mainY + ly) / 2} ${ax},${(mainY + ly) / 2} ${ax},${ly}` },
        s("title", {}, `${sp.subagent_type || "agent"} spawn ${sp.tool_use_id} → ${agentId} (${exact ? "exact link" : "matched"})`)));
    }
    svg.append(s("rect", { class: "spawn" + (agentId ? "" : " unlinked"), x: sx - 4, y: mainY - 4, width: 8, height: 8, transform: `rotate(45 ${sx} ${mainY})` },
      s("title", {}, `spawn ${sp.tool_use_id}: ${sp.subagent_type || "?"} ${sp.description || ""}${agentId ? "" : " (no agent yet)"}`)));
  }

  for (const r of t.runs) {
    if (!isCompaction(r)) continue;
    const cx = x(r.timestamp);
    svg.append(s("line", { class: "compaction", x1: cx, x2: cx, y1: top, y2: height - 10 }));
    // Near the right edge the label goes on the line's left, so that it is never cut.
    const leftOfLine = cx > width - right - 80;
    svg.append(s("text", { class: "compaction-label", x: leftOfLine ? cx - 4 : cx + 4, y: height - 14, "text-anchor": leftOfLine ? "end" : "start" }, "compaction"));
  }

  // Each hook run, on its agent's lane, coloured by its result.
  for (const r of t.runs) {
    const lane = r.agent_id ? byId.get(r.agent_id) : lanes[0];
    const y = laneY(lanes.indexOf(lane));
    const result = RESULTS.includes(r.result) ? r.result : "none";
    const big = result !== "none";
    svg.append(s("circle", { class: `mark m-${result}`, cx: x(r.timestamp), cy: y, r: big ? 6 : 4.5 },
      s("title", {}, `${clock(r.timestamp)} ${r.event} (${r.hook}) → ${r.result}${r.duration_ms !== null ? ", " + ms(r.duration_ms) : ""}`)));
  }
  return svg;
}

async function timelinePage() {
  const id = params.get("session");
  if (!id) return [h("p", {}, "No session chosen: ", h("a", { href: "/" }, "pick one"), ".")];
  const { now, timeline: t } = await api("timeline?session=" + encodeURIComponent(id));
  const width = Math.max(960, document.getElementById("main").clientWidth - 30);
  const sess = t.session;
  // Running agents carry how they were claimed and registered; finished ones do not.
  const running = t.agents.some((a) => !a.stopped_at);
  const agentRows = t.agents.map((a) => h("tr", {},
    td(a.agent_id, "mono"), td(a.agent_type), td(a.role || ""),
    td(h("span", { class: "badge src" }, a.role_source || "unknown")),
    running ? [td(a.claimed_by || ""), td(a.registered_by || "")] : null,
    td(num(a.tokens), "num"), td(clock(a.started_at)),
    td(a.stopped_at ? clock(a.stopped_at) : h("span", { class: "badge live" }, "running")),
    td(a.stopped_at ? duration(a.stopped_at - a.started_at) : ""),
    td(h("div", { class: "summary", title: a.summary || "" }, a.summary || ""), "wrap")));
  const spawnRows = t.spawns.map((sp) => h("tr", {},
    td(num(sp.transcript_index), "num"), td(sp.tool_use_id, "mono"), td(sp.subagent_type || ""),
    td(sp.role || ""), td(sp.description || "", "wrap"),
    td(sp.linked_agent_id || "–", "mono"), td(sp.matched_agent_id || "–", "mono"),
    td(sp.linked_agent_id ? "exact link" : sp.matched_agent_id ? "matched" : "waiting")));
  const runRows = t.runs.slice(-300).reverse().map((r) => h("tr", {},
    td(clock(r.timestamp)), td(r.event), td(r.hook), td(r.agent_id ? short(r.agent_id, 14) : "main", "mono"),
    td(resultBadge(r.result)), td(ms(r.duration_ms), "num"), td(r.details || "", "mono wrap")));
  const hitRows = t.rule_hits.map((x) => h("tr", {},
    td(clock(x.created_at)), td(x.rule_kind), td(x.rule_name), td(x.severity), td(resultBadge(x.decision)),
    reasonCell(x), td(x.agent_id ? short(x.agent_id, 14) : "main", "mono")));
  const decisions = {};
  for (const r of t.runs) decisions[r.result] = (decisions[r.result] || 0) + 1;
  return [
    h("h1", {}, "Session ", h("span", { class: "mono" }, sess.session_id), " ", sessionStatus(sess, now)),
    h("div", { class: "cards" },
      card(t.agents.length, "agents"), card(num(t.runs_total), "hook runs"),
      RESULTS.filter((r) => r !== "none" && decisions[r]).map((r) => card(decisions[r], r)),
      card(sess.compactions, "compactions"), card(t.spawns.length, "spawns"),
      card(duration(sess.last_seen_at - sess.started_at), "seen for")),
    panel(legend(), timelineChart(t, width),
      t.runs.length < t.runs_total ? h("p", { class: "muted" }, `Showing the newest ${num(t.runs.length)} of ${num(t.runs_total)} hook runs.`) : null),
    h("h2", {}, "Agents"),
    panel(t.agents.length ? table([["agent"], ["type"], ["role"], ["role source"], ...(running ? [["claimed by"], ["registered by"]] : []), ["tokens", "num"], ["started"], ["stopped"], ["ran"], ["summary"]], agentRows)
      : h("p", { class: "muted" }, "No subagent in this session.")),
    h("h2", {}, "Spawns and links"),
    panel(t.spawns.length ? table([["line", "num"], ["tool call"], ["type"], ["role"], ["description"], ["linked agent"], ["matched agent"], ["link"]], spawnRows)
      : h("p", { class: "muted" }, "No Agent/Task call found in the transcript.")),
    h("h2", {}, "Rule and guard hits"),
    panel(t.rule_hits.length ? table([["time"], ["kind"], ["rule"], ["severity"], ["decision"], ["reason"], ["agent"]], hitRows)
      : h("p", { class: "muted" }, "No rule fired in this session.")),
    h("h2", {}, "Hook runs (newest first)"),
    panel(table([["time"], ["event"], ["hook"], ["agent"], ["result"], ["duration", "num"], ["details"]], runRows)),
  ];
}

function hbars(items, width) {
  // Horizontal bars: [label, value] pairs.
  const max = Math.max(1, ...items.map(([, v]) => v));
  const left = 190, barH = 22, height = items.length * barH + 8;
  const svg = s("svg", { width, height, viewBox: `0 0 ${width} ${height}` });
  items.forEach(([label, v], i) => {
    const y = 4 + i * barH;
    const w = Math.max(2, ((width - left - 80) * v) / max);
    svg.append(s("text", { class: "ebar-label", x: left - 8, y: y + 15, "text-anchor": "end" }, label));
    svg.append(s("rect", { class: "ebar", x: left, y: y + 3, width: w, height: barH - 7, rx: 2 }));
    svg.append(s("text", { class: "ebar-label", x: left + w + 6, y: y + 15 }, num(v)));
  });
  return svg;
}

async function contextPage() {
  const session = params.get("session");
  const role = params.get("role") || "";
  const q = new URLSearchParams();
  if (session) q.set("session", session);
  if (role) q.set("role", role);
  const c = await api("context?" + q);
  const select = h("select", { id: "role" },
    h("option", { value: "" }, "main agent, after a compaction"),
    c.roles.map((r) => h("option", { value: r, selected: r === role ? "selected" : null }, r)));
  select.addEventListener("change", () => {
    const next = new URLSearchParams(location.search);
    if (select.value) next.set("role", select.value); else next.delete("role");
    history.replaceState(null, "", "/context?" + next);
    params.set("role", select.value);
    refresh();
  });
  const d = c.digest;
  const width = Math.max(600, Math.min(900, document.getElementById("main").clientWidth - 60));
  const cats = (session ? c.categories : c.project_categories).map((x) => [x.category, x.entries]);
  return [
    h("h1", {}, "Shared context", session ? [" of session ", h("span", { class: "mono" }, session)] : ""),
    h("h2", {}, "Entries per category"),
    panel(cats.length ? hbars(cats, width) : h("p", { class: "muted" }, "Nothing shared yet: agents' results are stored when they stop.")),
    h("h2", {}, "What a new agent would receive now"),
    panel(
      h("div", { class: "controls" }, h("label", { for: "role" }, "Role"), select,
        d ? h("span", { class: "muted" }, "session ", sessionLink(d.session_id, short(d.session_id, 16)),
          d.categories ? ` · categories: ${d.categories.join(", ") || "none"}` : " · all categories",
          ` · ${d.entries.length} entries`) : null),
      !d ? h("p", { class: "muted" }, "No session yet.")
        : !d.enabled ? h("p", { class: "muted" }, "Shared context is turned off in this project's config.")
          : d.text ? h("pre", { class: "digest" }, d.text)
            : h("p", { class: "muted" }, "Nothing would be injected.")),
    h("h2", {}, "Newest entries"),
    panel(c.entries.length ? c.entries.map((e) => h("div", { class: "entry" },
      h("div", { class: "meta" }, h("span", { class: "badge" }, e.category), " ",
        e.role || e.agent_type || "agent", e.agent_id ? ` ${short(e.agent_id, 14)}` : "",
        " · ", sessionLink(e.session_id, short(e.session_id, 12)), " · ", dateTime(e.created_at),
        e.tags ? ` · tags: ${e.tags}` : "", e.tokens ? ` · ${num(e.tokens)} tokens` : ""),
      h("div", { class: "content" }, e.content))) : h("p", { class: "muted" }, "No entry.")),
  ];
}

function firedTable(list) {
  return table([["kind"], ["rule"], ["hits", "num"], ["decisions"]], list.map((r) => h("tr", {},
    td(r.kind), td(r.rule, "mono"), td(num(r.hits), "num"), td(decisionBadges(r.decisions)))));
}

function decisionBadges(decisions) {
  return Object.entries(decisions || {}).filter(([, n]) => n).map(([d, n]) => [resultBadge(d), ` ${n} `]);
}

async function rulesPage() {
  const r = await api("rules");
  const recent = r.recent.map((x) => h("tr", {},
    td(dateTime(x.created_at)), td(sessionLink(x.session_id, short(x.session_id, 12)), "mono"),
    td(x.agent_id ? short(x.agent_id, 14) : "main", "mono"), td(x.rule_kind), td(x.rule_name, "mono"),
    td(x.severity), td(resultBadge(x.decision)), reasonCell(x)));
  const pending = r.pending_trust || [];
  const configured = r.configured.map((x) => h("tr", { class: x.hits ? "" : "quiet" },
    td(x.kind), td(x.rule, "mono"), td(x.severity), td(x.matches, "mono wrap"),
    td(num(x.hits), "num"), td(decisionBadges(x.decisions))));
  // Hits of rules the config no longer has.
  const gone = r.rules.filter((f) => !r.configured.some((c) => c.kind === f.kind && c.rule === f.rule));
  const problems = r.problems.map((p) => h("li", { class: p.may_weaken || p.problem !== "unknown_key" ? "problem fail" : "problem warn" },
    h("span", { class: "badge " + (p.may_weaken || p.problem !== "unknown_key" ? "r-deny" : "r-ask") },
      p.may_weaken || p.problem !== "unknown_key" ? "problem" : "warning"), " ", p.message));
  return [
    h("h1", {}, "Rules and guards"),
    pending.length ? panel(h("p", { class: "pending-trust" },
      `The config weakens safety (${pending.join("; ")}) and waits for your confirmation: run \`nagger trust\` in your terminal. Until then the settings last trusted stay in force.`)) : null,
    h("h2", {}, "Config problems"),
    panel(problems.length ? h("ul", { class: "problems" }, problems)
      : h("p", { class: "muted" }, r.config_present ? `${r.config_path} has no problem.` : `No ${r.config_path}: nagger runs on its defaults.`)),
    h("h2", {}, "Configured rules"),
    panel(configured.length ? table([["kind"], ["rule"], ["severity"], ["matches"], ["hits", "num"], ["decisions"]], configured)
      : h("p", { class: "muted" }, "The config has no rule; the built-in guard " + (r.guard_enabled ? "is on." : "is off."))),
    gone.length ? [h("h2", {}, "Rules that fired and are no longer configured"), panel(firedTable(gone))] : null,
    h("h2", {}, "Guard hits"),
    panel(r.guards.length ? firedTable(r.guards) : h("p", { class: "muted" }, r.guard_enabled ? "No guard check has fired." : "The guard is off in this project's config.")),
    h("h2", {}, "Newest hits"),
    panel(recent.length ? table([["time"], ["session"], ["agent"], ["kind"], ["rule"], ["severity"], ["decision"], ["reason"]], recent)
      : h("p", { class: "muted" }, "None.")),
  ];
}

async function tasksPage() {
  const { now, tasks } = await api("tasks");
  const rows = tasks.map((x) => h("tr", { class: x.status === "open" ? "" : "quiet" },
    td("#" + x.id, "num"), td(h("span", { class: "badge " + (x.status === "open" ? "live" : "ended") }, x.status)),
    td(x.role), td([h("div", {}, x.title), x.description ? h("div", { class: "small muted" }, x.description) : null], "wrap"),
    td(ago(x.created_at, now), "nowrap"), td(x.done_at ? ago(x.done_at, now) : "", "nowrap")));
  const open = tasks.filter((x) => x.status === "open").length;
  return [
    h("h1", {}, "Tasks"),
    h("div", { class: "cards" }, card(open, "open"), card(tasks.length - open, "done")),
    panel(tasks.length
      ? table([["task", "num"], ["status"], ["role"], ["title"], ["added"], ["done"]], rows)
      : h("p", { class: "muted" }, "No task yet: `nagger task add --role R \"title\"` hands one to every new agent of that role.")),
  ];
}

function latencyChart(buckets, width) {
  const height = 260, left = 64, right = 20, top = 16, bottom = 34;
  const svg = s("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "hook latency over time" });
  const timed = buckets.filter((b) => b.runs > 0);
  if (!timed.length) {
    svg.append(s("text", { class: "axis", x: left, y: height / 2 }, "No timed hook run in this window."));
    return svg;
  }
  const t0 = buckets[0].from_ms, t1 = buckets[buckets.length - 1].to_ms;
  const ymax = Math.max(1, ...timed.map((b) => b.p99)) * 1.1;
  const x = (t) => left + ((t - t0) / Math.max(1, t1 - t0)) * (width - left - right);
  const y = (v) => top + (1 - v / ymax) * (height - top - bottom);
  for (let i = 0; i <= 4; i++) {
    const v = (ymax * i) / 4;
    svg.append(s("line", { class: "grid", x1: left, x2: width - right, y1: y(v), y2: y(v) }));
    svg.append(s("text", { class: "axis", x: left - 6, y: y(v) + 4, "text-anchor": "end" }, ms(v)));
  }
  const labels = Math.min(6, buckets.length);
  for (let i = 0; i < labels; i++) {
    const t = t0 + ((t1 - t0) * i) / Math.max(1, labels - 1);
    const label = t1 - t0 > 864e5 ? dateTime(t).slice(5, 16) : t1 - t0 < 600000 ? "+" + duration(t - t0) : clock(t);
    svg.append(s("text", { class: "axis", x: x(t), y: height - 12, "text-anchor": i === 0 ? "start" : i === labels - 1 ? "end" : "middle" },
      i === 0 ? clock(t) : label));
  }
  for (const p of ["p50", "p95", "p99"]) {
    const pts = timed.map((b) => `${x((b.from_ms + b.to_ms) / 2).toFixed(1)},${y(b[p]).toFixed(1)}`);
    svg.append(s("polyline", { class: `series ${p}`, points: pts.join(" ") }));
    for (const b of timed) {
      svg.append(s("circle", { class: `series ${p}`, cx: x((b.from_ms + b.to_ms) / 2), cy: y(b[p]), r: timed.length > 60 ? 0 : 2.5 },
        s("title", {}, `${clock(b.from_ms)}–${clock(b.to_ms)}: ${p} ${ms(b[p])} over ${b.runs} runs`)));
    }
  }
  return svg;
}

async function statsPage() {
  const windows = [["3600", "last hour"], ["86400", "last 24 hours"], ["604800", "last 7 days"], ["all", "all time"]];
  const window_ = params.get("window") || "all";
  const st = await api("stats?window=" + window_);
  const select = h("select", { id: "window" }, windows.map(([v, label]) => h("option", { value: v, selected: v === window_ ? "selected" : null }, label)));
  select.addEventListener("change", () => {
    history.replaceState(null, "", "/stats?window=" + select.value);
    params.set("window", select.value);
    refresh();
  });
  const width = Math.max(700, Math.min(1200, document.getElementById("main").clientWidth - 60));
  const t = st.stats.totals;
  const hookRows = st.stats.hooks.map((x) => h("tr", {},
    td(x.event), td(x.hook), td(num(x.runs), "num"), td(ms(x.duration_ms.p50), "num"), td(ms(x.duration_ms.p95), "num"),
    td(ms(x.duration_ms.p99), "num"), td(ms(x.duration_ms.max), "num"), td(num(x.errors), "num"),
    td(Object.entries(x.decisions).filter(([d, n]) => n && d !== "none").map(([d, n]) => [resultBadge(d), ` ${n} `]))));
  return [
    h("h1", {}, "Stats"),
    h("div", { class: "controls" }, h("label", { for: "window" }, "Window"), select),
    h("div", { class: "cards" }, card(num(t.runs), "hook runs"), card(num(t.errors), "errors"),
      ["deny", "ask", "block", "context"].map((d) => card(num(t.decisions[d] || 0), d)),
      card(num(st.stats.context.count), "context injections")),
    h("h2", {}, "Hook latency over time"),
    panel(h("div", { class: "legend" }, ["p50", "p95", "p99"].map((p) => h("span", {}, h("i", { class: "dot-" + { p50: "context", p95: "ask", p99: "deny" }[p] }), p))),
      latencyChart(st.latency, width)),
    h("h2", {}, "Runs per event"),
    panel(Object.keys(st.runs_per_event).length ? hbars(Object.entries(st.runs_per_event).sort((a, b) => b[1] - a[1]), width)
      : h("p", { class: "muted" }, "No hook run in this window.")),
    h("h2", {}, "Per hook"),
    panel(table([["event"], ["hook"], ["runs", "num"], ["p50", "num"], ["p95", "num"], ["p99", "num"], ["max", "num"], ["errors", "num"], ["decisions"]], hookRows)),
    h("h2", {}, "Role sources"),
    panel(Object.keys(st.stats.roles.by_source).length ? hbars(Object.entries(st.stats.roles.by_source), width)
      : h("p", { class: "muted" }, "No subagent started.")),
  ];
}

// ── routing and live updates ──

const PAGES = { "/": sessionsPage, "/timeline": timelinePage, "/context": contextPage, "/rules": rulesPage, "/tasks": tasksPage, "/stats": statsPage };

let rendering = false;

async function refresh() {
  if (rendering) return;
  rendering = true;
  const main = document.getElementById("main");
  try {
    const content = await (PAGES[location.pathname] || sessionsPage)();
    const scroll = window.scrollY;
    main.replaceChildren(...content.flat().filter(Boolean));
    window.scrollTo(0, scroll);
  } catch (e) {
    main.replaceChildren(h("div", { class: "error-box" }, String(e.message || e)));
  } finally {
    rendering = false;
  }
}

let lastChange = null;

async function poll() {
  const status = document.getElementById("status");
  try {
    const change = JSON.stringify(await api("changes"));
    if (staleMs === null) {
      status.className = "status live";
      status.textContent = "live · " + clock(Date.now());
    } else {
      status.className = "status down";
      status.textContent = "database busy · showing what was read " + duration(staleMs) + " ago";
    }
    if (lastChange !== null && change !== lastChange) await refresh();
    lastChange = change;
  } catch (e) {
    status.className = "status down";
    status.textContent = "disconnected";
  }
}

for (const a of document.querySelectorAll("nav a")) {
  const page = a.getAttribute("data-page");
  if (page === location.pathname || (page === "/" && location.pathname === "/timeline")) a.classList.add("current");
}
refresh();
poll();
setInterval(poll, POLL_MS);
