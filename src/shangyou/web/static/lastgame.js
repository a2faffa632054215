// The game this browser last played (localStorage, shangyou.last): the lobby's Play now and its
// game and players menus start from it. Written when the lobby starts or creates a table and
// when the table page sees this player seated in a match that has started.

const KEY = "shangyou.last";
export const FIRST_GAME = { game: "zheng-shangyou/pagat", players: 4 };   // a first visit

/** {game, players} of the last match played here, or FIRST_GAME. */
export function lastGame() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || "null");
    if (v && typeof v.game === "string" && Number.isInteger(v.players)) return v;
  } catch { /* unreadable: as on a first visit */ }
  return { ...FIRST_GAME };
}

export function rememberGame(game, players) {
  if (typeof game !== "string" || !Number.isInteger(Number(players))) return;
  try {
    localStorage.setItem(KEY, JSON.stringify({ game, players: Number(players) }));
  } catch { /* private mode */ }
}
