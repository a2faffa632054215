// The chat badge: on a phone (or any window where the side panel is a drawer) a chat line that
// arrives while the drawer is closed adds one to a count beside the button that opens it
// ("More"), until the drawer is opened. Where the chat is in view (the side column of a wide
// screen, the page before the match) nothing is counted.
//
// table.js calls: onChat() for each chat line.

import { h } from "./common.js";
import { t } from "./i18n.js";

export function makeUnread({ $ }) {
  let unread = 0;
  const badge = h("span", { class: "chat-badge", id: "chat-badge", hidden: true });
  $("open-side").after(badge);
  const chatHidden = () => getComputedStyle($("side")).display === "none";

  function show() {
    badge.hidden = unread === 0;
    badge.textContent = unread ? String(unread) : "";
    const label = unread ? t("t.unread", { n: unread }) : "";
    if (label) badge.setAttribute("aria-label", label); else badge.removeAttribute("aria-label");
    $("open-side").setAttribute("aria-description", label);
  }

  function seen() {
    if (unread && !chatHidden()) { unread = 0; show(); }
  }

  function onChat() {
    if (chatHidden()) { unread += 1; show(); }
  }

  // the drawer opens (a class on <body>) or the window grows: the lines are seen
  new MutationObserver(seen).observe(document.body, { attributes: true, attributeFilter: ["class"] });
  window.addEventListener("resize", seen);
  return { onChat, count: () => unread };
}
