// The leaderboard of one game (GET /api/leaderboard?game=): the accounts rated at rated
// tables, best first, a page at a time. ?game= in the address picks the game.

import { api, h } from "./common.js";
import { has, t, translatePage } from "./i18n.js";
import { mountSettings } from "./settings.js";

const $ = (id) => document.getElementById(id);
const PAGE = 50;
let games = [];
let offset = 0;
let last = null;

const familyName = (g) => (has(`family.${g}`) ? t(`family.${g}`) : g);

function fillGames() {
  const sel = $("board-game");
  const was = sel.value || new URLSearchParams(location.search).get("game") || "zheng-shangyou";
  sel.replaceChildren(...games.map((g) => h("option", { value: g, selected: g === was ? true : undefined },
    familyName(g))));
}

function render() {
  if (!last) return;
  const head = h("tr", {}, ...["acct.rank", "acct.player", "acct.rating", "acct.matches", "acct.wins"]
    .map((k) => h("th", {}, t(k))));
  $("board").replaceChildren(head, ...(last.players.length ? last.players.map((p) => h("tr", {},
    h("td", {}, p.rank), h("td", { class: "item-text" }, p.name), h("td", {}, p.rating),
    h("td", {}, p.matches), h("td", {}, p.wins)))
    : [h("tr", {}, h("td", { colspan: 5, class: "muted" }, t("acct.noneRated")))]));
  $("board-pager").hidden = last.total <= PAGE;
  $("board-prev").disabled = offset <= 0;
  $("board-next").disabled = offset + PAGE >= last.total;
}

async function load() {
  const game = $("board-game").value || "zheng-shangyou";
  try {
    last = await api(`/api/leaderboard?game=${encodeURIComponent(game)}&limit=${PAGE}&offset=${offset}`);
    if (!games.length) { games = last.games; fillGames(); }
  } catch (ex) {
    last = { players: [], total: 0 };
  }
  render();
}

async function main() {
  translatePage();
  mountSettings($("top"), { onLang: () => { translatePage(); fillGames(); render(); } });
  try { games = (await api("/api/leaderboard?game=zheng-shangyou&limit=1")).games; } catch { games = []; }
  fillGames();
  $("board-game").addEventListener("change", () => {
    offset = 0;
    history.replaceState(null, "", `/leaderboard?game=${encodeURIComponent($("board-game").value)}`);
    load();
  });
  $("board-prev").addEventListener("click", () => { offset = Math.max(0, offset - PAGE); load(); });
  $("board-next").addEventListener("click", () => { offset += PAGE; load(); });
  await load();
  document.body.dataset.ready = "1";
}

main();
