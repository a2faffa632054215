// The "Log in" link of a page's top bar shows the logged-in account's name (GET /api/account/who).
// `who` is that one answer for the page's other scripts (the lobby's Rated choice): the account
// ({username}) or null for a guest.

import { api } from "./common.js";

export const who = api("/api/account/who").then((me) => (me && me.username ? me : null),
  () => null);

const link = document.getElementById("account-link");
if (link) {
  who.then((me) => {
    if (me) {
      link.removeAttribute("data-i18n");
      link.textContent = me.username;
      link.classList.add("logged-in");
    }
  });
}
