// The player's hand at the bottom of the table: one button per card (one tab stop, arrows
// move inside), picked cards raised, laid out in at most two rows (table-layout.js fitHand).

import { cardElement } from "./cards.js";
import { h } from "./common.js";
import { t } from "./i18n.js";
import { fitHand } from "./table-layout.js";

/**
 * Draw `hand` into `box`. opts: {selected (Set of indices), pending (cards of a throw in
 * progress), focusIndex, clickable, note (text when there is no hand), fromKitty (Set of the
 * indices of cards that came from the kitty: marked, and said in their names), onCard(i),
 * onFocus(i)}.
 */
export function drawHand(box, hand, opts) {
  const hadFocus = box.contains(document.activeElement);
  box.replaceChildren();
  if (!Array.isArray(hand)) {
    box.classList.add("no-hand");
    if (opts.note) box.append(h("p", { class: "muted" }, opts.note));
    return;
  }
  box.classList.remove("no-hand");
  const pending = [...(opts.pending || [])];
  hand.forEach((card, i) => {
    const b = cardElement(card, { button: true });
    b.dataset.index = String(i);
    // cards already picked for a throw or a follow in progress are shown as selected
    const pi = pending.indexOf(card);
    const isPending = pi >= 0;
    if (isPending) pending.splice(pi, 1);
    const sel = opts.selected.has(i) || isPending;
    b.classList.toggle("selected", sel);
    b.setAttribute("aria-pressed", String(sel));
    b.tabIndex = i === opts.focusIndex ? 0 : -1;
    if (opts.fromKitty && opts.fromKitty.has(i)) {
      b.classList.add("from-kitty");
      b.setAttribute("aria-label", t("kitty.cardFrom", { card: b.getAttribute("aria-label") }));
      // the badge is drawn by CSS (::after): no text inside the button beside its name
      b.dataset.badge = t("kitty.badge");
    }
    if (opts.clickable) b.classList.add("clickable");
    b.addEventListener("click", () => opts.onCard(i));
    b.addEventListener("focus", () => opts.onFocus(i));
    box.append(b);
  });
  fitHand(box);
  if (hadFocus) box.children[opts.focusIndex]?.focus();
}
