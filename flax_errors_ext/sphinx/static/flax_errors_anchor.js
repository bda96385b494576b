/*
 * flax-errors: a link to an error this page has no entry for says so.
 *
 * Readers arrive from the URL an error printed, and an old release may print an
 * anchor this site has no entry for (an error retired before the releases the
 * site records, or renamed). The browser would show the top of the page without
 * a word; this puts a notice there instead, with a search for the name.
 * The text is set as text: nothing from the URL becomes HTML.
 */
"use strict";

(() => {
  const DOTTED_NAME = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$/;
  const NOTICE_ID = "flax-errors-missing-anchor";

  const show = () => {
    document.getElementById(NOTICE_ID)?.remove();
    let wanted;
    try {
      wanted = decodeURIComponent(window.location.hash.slice(1));
    } catch {
      return;
    }
    if (!DOTTED_NAME.test(wanted) || document.getElementById(wanted)) return;
    // Only on a page of the catalogue: an entry's, or a module's index of them.
    if (!document.querySelector("section.flax-errors-entry, .flax-errors-summary")) return;
    const name = wanted.split(".").pop();
    const notice = document.createElement("div");
    notice.id = NOTICE_ID;
    notice.className = "admonition warning";
    notice.setAttribute("role", "status");
    const title = document.createElement("p");
    title.className = "admonition-title";
    title.textContent = `No entry for ${wanted} here`;
    const body = document.createElement("p");
    body.append(
      `${name} is not an error of the releases this site records: it may have been ` +
        "retired before them, or renamed. ",
    );
    const search = document.createElement("a");
    const root = document.documentElement.dataset.content_root ?? "";
    search.href = `${root}search.html?q=${encodeURIComponent(name)}`;
    search.textContent = `Search the catalogue for ${name}`;
    body.append(search, ", or paste the whole message you got.");
    notice.append(title, body);
    const main = document.querySelector("main article, main, [role=main]") || document.body;
    main.prepend(notice);
    notice.scrollIntoView();
  };

  window.addEventListener("hashchange", show);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", show);
  else show();
})();
