// The host's tools on the table page. A table belongs to its host: whoever says hello with the
// host token the lobby got when it created the table (welcome.host), or the person the role was
// handed to (table.host is their seat). Only the host fills seats with bots, removes people and
// bots, moves players between seats, changes the options, hands the role on, closes the table
// and starts; the server refuses those messages from anyone else (error not_host). Against a
// server without hosts (no "host" in welcome) the page keeps its old controls for everyone.
//
// table.js calls: onWelcome(msg), onTable(table, mySeat) with each state, seatActions(seat) for
// each row of the waiting seat list, and render() after it drew the page.

import { api, displayName, h } from "./common.js";
import { lang, t } from "./i18n.js";
import { optionFields, readOptionValues, readRoom, roomFields, same } from "./options.js";

const $ = (id) => document.getElementById(id);

export const H = {
  proto: false,     // the server speaks of hosts
  me: false,        // this page holds the host role
};

let page = null;     // {S, send, showAlert}: table.js's state and its sender
let presets = null;  // GET /api/presets, fetched when the options dialog first opens

export function initHost(p) {
  page = p;
  $("host-close").addEventListener("click", openClose);
  $("host-options").addEventListener("click", openOptions);
  $("host-new").addEventListener("click", () => page.send({ type: "start" }));
  mountHints();
}

// ---------------------------------------------------------------- hints between people
// The room's `hints` option (docs/protocol.md, *Hints*): unset, hints are given while one
// person plays and refused once two or more do; the host may turn them off for everyone or
// allow them between people. Set while the table waits, like the other options.
const HINTS = [["", "hh.auto"], ["off", "hh.off"], ["heuristic", "hh.heuristic"], ["search", "hh.search"]];

function mountHints() {
  const sel = h("select", { id: "host-hints" });
  sel.addEventListener("change", () => {
    delete sel.dataset.key;              // the next state shows what the room holds
    page.send({ type: "options", room: { hints: sel.value || null } });
  });
  const row = h("label", { class: "field host-hints", id: "host-hints-row" },
    h("span", { id: "host-hints-label" }, t("hh.hints")), sel);
  $("host-panel").querySelector(".row").before(row);
}

function renderHints(tb, status) {
  const sel = $("host-hints");
  if (!sel) return;
  const now = (tb.room && tb.room.hints) || "";
  sel.disabled = status !== "waiting";   // the server takes options while the table waits
  // redrawn only when something it shows changed (an open menu is left alone)
  const key = `${lang()}|${now}`;
  if (sel.dataset.key === key) return;
  sel.dataset.key = key;
  $("host-hints-label").textContent = t("hh.hints");
  sel.replaceChildren(...HINTS.map(([v, key]) => h("option", { value: v, selected: v === now ? true : undefined }, t(key))));
  sel.value = now;
}

export function onWelcome(msg) {
  if ("host" in msg) H.proto = true;
  H.me = msg.host === true;
}

/** A state's table: the host role may have moved (handed on, or passed on by the server). */
export function onTable(table, mySeat) {
  if (!table) return;
  if ("host" in table) H.proto = true;
  const seat = table.host;
  if (seat !== null && seat !== undefined) H.me = mySeat !== null && mySeat !== undefined && seat === mySeat;
}

/** May this page use the table's controls (start, bots)? The host; anyone on an older server. */
export function mayControl() {
  return !H.proto || H.me;
}

function seatName(s) {
  return `${t("t.seatN", { n: s.seat + 1 })}${s.kind === "empty" ? "" : ", " + displayName(s)}`;
}

function button(cls, text, label, msg) {
  return h("button", { type: "button", class: `host-btn ${cls}`, dataset: { seat: String(msg.seat) },
                       "aria-label": `${text}: ${label}`, onclick: () => page.send(msg) }, text);
}

/** The host's buttons for one seat (an empty list for anyone else). */
export function seatActions(s) {
  if (!H.proto || !H.me || !page) return [];
  const S = page.S;
  const tb = S.table;
  const out = [];
  const label = seatName(s);
  const mine = s.seat === S.mySeat;
  if (tb.status === "waiting") {
    if (s.kind === "empty") {
      out.push(button("add-bot", t("h.addBot"), label,
        { type: "bots", level: $("bot-level").value, seat: s.seat }));
    } else if (s.kind === "bot") {
      out.push(button("kick", t("h.removeBot"), label, { type: "kick", seat: s.seat }));
    } else if (!mine) {
      out.push(button("kick", t("h.kick"), label, { type: "kick", seat: s.seat }));
    }
    if (s.kind === "human" && !mine) {
      out.push(button("make-host", t("h.makeHost"), label, { type: "host", seat: s.seat }));
    }
    if (s.kind !== "empty" && tb.seats.length > 1) {
      const sel = h("select", { class: "swap-to", dataset: { seat: String(s.seat) },
                                "aria-label": t("h.moveTo", { who: label }) },
        ...tb.seats.filter((o) => o.seat !== s.seat).map((o) =>
          h("option", { value: String(o.seat) }, t("t.seatN", { n: o.seat + 1 }))));
      out.push(h("span", { class: "swap" }, sel,
        h("button", { type: "button", class: "host-btn swap-btn", dataset: { seat: String(s.seat) },
                      "aria-label": `${t("h.move")}: ${label}`,
                      onclick: () => page.send({ type: "swap", seat: s.seat, to: Number(sel.value) }) },
          t("h.move"))));
    }
  } else if (tb.status === "playing" || tb.status === "over") {
    if (s.kind === "human" && !mine) {
      if (tb.status === "playing") {
        out.push(button("kick", t("h.botPlays"), label, { type: "kick", seat: s.seat }));
      }
      out.push(button("make-host", t("h.makeHost"), label, { type: "host", seat: s.seat }));
    }
  }
  return out;
}

/** The parts of the page that depend on the host role. */
export function render() {
  const S = page.S;
  const tb = S.table;
  const me = H.proto && H.me;
  document.body.dataset.host = me ? "1" : "";
  const status = tb ? tb.status : "";
  const live = !!tb && !S.stopped && status !== "closed";
  // the waiting panel: the host's row, or "waiting for the host" for everyone else
  $("host-row").hidden = !mayControl();
  $("wait-host").hidden = mayControl() || status !== "waiting";
  // the host panel: the seats during a match, options, a new match, closing
  const panel = $("host-panel");
  panel.hidden = !(me && live);
  if (panel.hidden) return;
  $("host-options").hidden = status !== "waiting";
  renderHints(tb, status);
  $("host-new").hidden = status !== "over";
  const list = $("host-seats");
  if (status === "waiting") {
    list.replaceChildren();          // the seat list above has the host's buttons
  } else {
    list.replaceChildren(...tb.seats.map((s) => {
      const acts = seatActions(s);
      return acts.length ? h("li", { dataset: { seat: String(s.seat) } },
        h("span", { class: "seat-label" }, seatName(s)), h("span", { class: "row" }, ...acts)) : null;
    }).filter(Boolean));
  }
  list.hidden = !list.children.length;
}

// ---------------------------------------------------------------------------- dialogs
function dialog(id, title) {
  let d = $(id);
  if (!d) {
    d = h("dialog", { id, class: "dialog", "aria-labelledby": `${id}-title` });
    document.body.append(d);
  }
  d.replaceChildren(h("h2", { id: `${id}-title` }, title));
  return d;
}

function openClose() {
  const d = dialog("close-dialog", t("h.closeTitle"));
  d.append(h("p", {}, t("h.closeText")),
    h("div", { class: "row" },
      h("button", { type: "button", class: "primary", id: "close-confirm",
                    onclick: () => { d.close(); page.send({ type: "close" }); } }, t("h.close")),
      h("button", { type: "button", id: "close-cancel", onclick: () => d.close() }, t("h.cancel"))));
  d.showModal();
}

async function openOptions() {
  const tb = page.S.table;
  if (!tb) return;
  const d = dialog("options-dialog", t("h.optionsTitle"));
  const err = h("div", { class: "alert", role: "alert", id: "options-error" });
  d.append(err);
  d.showModal();
  if (!presets) {
    try {
      presets = await api("/api/presets");
    } catch (ex) {
      err.textContent = t("lobby.errGames", { msg: ex.message });
      d.append(h("div", { class: "row" }, h("button", { type: "button", onclick: () => d.close() }, t("h.cancel"))));
      return;
    }
  }
  const preset = presets.find((p) => p.name === tb.game) || { defaults: {} };
  const defaults = preset.defaults || {};
  const current = { ...defaults, ...(tb.options || {}) };
  const opts = h("div", { class: "options-grid", id: "host-option-fields" }, ...optionFields(defaults, current, "hopt"));
  const room = h("div", { class: "room-options", id: "host-room-fields" }, ...roomFields(tb.room || {}, "hroom"));
  const form = h("form", { id: "options-form", novalidate: true },
    h("fieldset", {}, h("legend", {}, t("lobby.options")), opts),
    h("fieldset", {}, h("legend", {}, t("lobby.room")), room),
    h("div", { class: "row" },
      h("button", { type: "submit", class: "primary", id: "options-save" }, t("h.save")),
      h("button", { type: "button", id: "options-cancel", onclick: () => d.close() }, t("h.cancel"))));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    let values;
    let roomValues;
    try {
      values = readOptionValues(opts);
      roomValues = readRoom(room, "hroom");
    } catch (ex) {
      err.textContent = ex.message;
      return;
    }
    // every option away from the preset's default, and every one changed here
    const options = {};
    for (const [k, v] of Object.entries(values)) {
      if (!same(v, defaults[k]) || !same(v, current[k])) options[k] = v;
    }
    if (page.send({ type: "options", options, room: roomValues })) d.close();
  });
  d.insertBefore(form, err);
  opts.querySelector("input, select")?.focus();
}
