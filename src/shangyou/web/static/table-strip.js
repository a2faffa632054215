// The game's facts in one compact strip that stays in view above the table: Sheng ji's
// level, trump, declarer, defenders' points and kitty (and the friend calls); the climbing
// games' hand, target and team scores; Zheng Fen's points on the table. The full list of facts
// is in the side panel (renderInfo).

import { trumpElement } from "./cards.js";
import { gameFamily, h } from "./common.js";
import { lang, t } from "./i18n.js";
import { seatRef } from "./table-seats.js";
import { callsWords } from "./view.js";

export function renderStrip(view, ctx, options = {}) {
  const fam = gameFamily(view.game);
  const box = h("dl", { class: "strip-list", id: "strip-list" });
  const add = (key, label, value) => box.append(h("div", { class: "sfact", dataset: { fact: key } },
    h("dt", {}, label), h("dd", {}, value)));
  // a match of a fixed number of hands (Winner's "hands") says how far it has come
  const hands = Number(options.hands || (view.options && view.options.hands) || 0);
  add("hand", t("f.hand"), hands ? t("f.handOf", { n: view.hand_number ?? "-", m: hands })
    : String(view.hand_number ?? "-"));
  if (fam === "sheng-ji") {
    add("level", t("f.level"), String(view.level ?? "-"));
    add("trump", t("f.trump"), trumpElement(view.trump));
    add("declarer", t("f.declarer"), view.declarer === null || view.declarer === undefined
      ? t("f.undecided") : seatRef(ctx, view.declarer));
    add("points", t("f.oppPoints"), String(view.opponents_points ?? 0));
    add("kitty", t("f.kitty"), t("f.kittyN", { n: view.kitty_size ?? "?" }));
    if ((view.calls || []).length) add("calls", t("f.calls"), callsWords(view.calls));
    // Zhao Pengyou: the friends found, named as their seats show them
    if ((view.friends || []).length) {
      const sep = lang() === "zh" ? "、" : ", ";
      add("friends", t("f.friends"), h("span", {}, ...view.friends.flatMap((s, i) =>
        i ? [sep, seatRef(ctx, s)] : [seatRef(ctx, s)])));
    }
  } else {
    if (view.target !== null && view.target !== undefined) add("target", t("f.target"), String(view.target));
    if (view.teams && view.team_scores) {
      add("teams", t("f.teamScores"), view.team_scores.join(" : "));
    }
    if (fam === "zheng-fen") add("table-points", t("f.tablePoints"), String(view.table_points ?? 0));
  }
  return box;
}
