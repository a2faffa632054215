// The account page: sign up / log in (POST /api/account/signup, /login: the server sets an
// HttpOnly session cookie), then the account (GET /api/account): ratings, stats per game, the
// latest matches with their replays and reviews; a new rated table; log out; delete.

import { api, gameTitle, h } from "./common.js";
import { has, t, translatePage } from "./i18n.js";
import { mountSettings } from "./settings.js";

const $ = (id) => document.getElementById(id);
let me = null;
let presets = [];

const familyName = (g) => (has(`family.${g}`) ? t(`family.${g}`) : g);

function show(logged) {
  $("login-panel").hidden = logged;
  for (const id of ["me-panel", "rated-panel", "history-panel", "delete-panel"]) $(id).hidden = !logged;
}

function row(cells, head = false) {
  return h("tr", {}, ...cells.map((c) => h(head ? "th" : "td", {}, c)));
}

function render() {
  if (!me) { show(false); return; }
  show(true);
  $("me-name").textContent = me.username;
  $("ratings").replaceChildren(
    row([t("acct.game"), t("acct.rating"), t("acct.matches"), t("acct.wins")], true),
    ...(me.ratings.length ? me.ratings.map((r) => row([familyName(r.game), r.rating,
      r.matches, r.wins]))
      : [h("tr", {}, h("td", { colspan: 4, class: "muted" }, t("acct.noRatings")))]));
  $("stats").replaceChildren(
    row([t("acct.game"), t("acct.matches"), t("acct.wins"), t("acct.firsts")], true),
    ...(me.stats.length ? me.stats.map((s) => row([familyName(s.game), s.matches, s.wins, s.first]))
      : [h("tr", {}, h("td", { colspan: 4, class: "muted" }, t("acct.none")))]));
  $("history").replaceChildren(...(me.history.length ? me.history.map((m) => {
    const others = m.names.filter((_, i) => i !== m.seat).map((n) => n || "?").join(", ");
    const change = m.rated && m.after !== null
      ? ` · ${t("acct.ratingChange", { before: m.before, after: m.after })}`
      : "";
    return h("li", { class: "history-item" },
      h("span", { class: "item-text" },
        `${gameTitle(m.preset)} · ${m.won ? t("acct.won") : t("acct.lost")}`
        + (m.place ? ` · ${t("acct.place", { n: m.place })}` : "")
        + ` · ${t("acct.with", { names: others })}` + change
        + (m.rated ? ` · ${t("acct.rated")}` : "")),
      h("span", { class: "row" },
        h("a", { class: "button", href: m.replay }, t("acct.replay")),
        h("a", { class: "button", href: `${m.replay}#seat=${m.seat}` }, t("acct.review"))));
  }) : [h("li", { class: "muted" }, t("acct.none"))]));
  fillRated();
}

function fillRated() {
  const fams = [...new Set(presets.map((p) => p.game))];
  const sel = $("rated-game");
  const was = sel.value;
  sel.replaceChildren(...presets.filter((p) => p.players.some((n) => n >= 2))
    .map((p) => h("option", { value: p.name, selected: p.name === was ? true : undefined },
      `${gameTitle(p.name)}`)));
  fillPlayers();
  return fams;
}

function fillPlayers() {
  const p = presets.find((x) => x.name === $("rated-game").value);
  const sel = $("rated-players");
  const was = sel.value;
  sel.replaceChildren(...(p ? p.players.filter((n) => n >= 2) : [])
    .map((n) => h("option", { value: n, selected: String(n) === was ? true : undefined },
      t("acct.nPlayers", { n }))));
}

async function load() {
  try { me = await api("/api/account"); } catch { me = null; }
  render();
}

async function enter(kind) {
  const err = $("login-error");
  err.textContent = "";
  try {
    await api(`/api/account/${kind}`, { method: "POST",
      body: { username: $("username").value.trim(), password: $("password").value } });
    $("password").value = "";
    await load();
  } catch (ex) {
    err.textContent = ex.message || String(ex);
  }
}

async function createRated(e) {
  e.preventDefault();
  const err = $("rated-error");
  err.textContent = "";
  try {
    const res = await api("/api/tables", { method: "POST", body: {
      game: $("rated-game").value, players: Number($("rated-players").value), room: { rated: true } } });
    try { localStorage.setItem(`shangyou.token.${res.table_id}`, res.host_token); } catch { /* private mode */ }
    location.href = `/t/${encodeURIComponent(res.table_id)}`;
  } catch (ex) {
    err.textContent = ex.message || String(ex);
  }
}

async function remove(e) {
  e.preventDefault();
  const err = $("delete-error");
  err.textContent = "";
  if (!window.confirm(t("acct.deleteConfirm"))) return;
  try {
    await api("/api/account/delete", { method: "POST", body: { password: $("delete-password").value } });
    $("delete-password").value = "";
    me = null;
    render();
  } catch (ex) {
    err.textContent = ex.message || String(ex);
  }
}

async function main() {
  translatePage();
  mountSettings($("top"), { onLang: () => { translatePage(); render(); } });
  $("login-form").addEventListener("submit", (e) => { e.preventDefault(); enter("login"); });
  $("do-signup").addEventListener("click", () => enter("signup"));
  $("logout").addEventListener("click", async () => {
    try { await api("/api/account/logout", { method: "POST", body: {} }); } catch { /* gone already */ }
    me = null;
    render();
  });
  $("rated-form").addEventListener("submit", createRated);
  $("rated-game").addEventListener("change", fillPlayers);
  $("delete-form").addEventListener("submit", remove);
  try { presets = await api("/api/presets"); } catch { presets = []; }
  await load();
  document.body.dataset.ready = "1";
}

main();
