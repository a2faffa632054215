// The "Log in" link of a page's top bar shows the logged-in account's name (GET /api/account).

import { api } from "./common.js";

const link = document.getElementById("account-link");
if (link) {
  api("/api/account").then((me) => {
    if (me && me.username) {
      link.removeAttribute("data-i18n");
      link.textContent = me.username;
      link.classList.add("logged-in");
    }
  }).catch(() => { /* a guest */ });
}
