/*
 * flax-errors: pasted error text finds its entry.
 *
 * Sphinx's search ranks whole pages, and one page holds all of a module's errors.
 * This matches the query against the catalogue's error messages (written by the
 * build to flax_errors_search_data.js) and puts matching entries, with their
 * anchors, at the top of Sphinx's own results. Words are compared, not the exact
 * text, so a message naming other parameters or shapes than the documented one
 * still finds its entry. Nothing here builds HTML: Sphinx escapes what it shows.
 */
"use strict";

(() => {
  if (typeof Search === "undefined" || typeof Search._performSearch !== "function") return;

  const MIN_SHARED_WORDS = 3;
  const MIN_SHARE = 0.6; // of the query's words found in the entry's messages
  const MAX_RESULTS = 5;

  const words = (text) =>
    new Set(
      (text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) || []).filter((w) => w.length > 1),
    );

  const entries = (window.FLAX_ERRORS_SEARCH || []).map((entry) => ({
    entry,
    names: new Set([entry.name.toLowerCase(), entry.qualname.toLowerCase()]),
    words: words([entry.qualname, ...entry.messages].join(" ")),
  }));

  const matches = (query) => {
    const asked = words(query);
    if (asked.size < MIN_SHARED_WORDS) return [];
    const found = [];
    for (const { entry, names, words: known } of entries) {
      let shared = 0;
      for (const word of asked) if (known.has(word)) shared += 1;
      const share = shared / asked.size;
      if (shared < MIN_SHARED_WORDS || share < MIN_SHARE) continue;
      const named = [...asked].some((word) => names.has(word)) ? 1 : 0;
      // Most of the query found, then the entry named, then the closest message.
      found.push([share + named + shared / known.size / 10, entry]);
    }
    found.sort((a, b) => b[0] - a[0]);
    return found.slice(0, MAX_RESULTS).map(([score, entry]) => [
      entry.docname,
      entry.name,
      "#" + entry.qualname,
      entry.headline || null,
      Math.round(100 + 100 * score),
      entry.docname,
      "flax-errors",
    ]);
  };

  const sphinxSearch = Search._performSearch;
  Search._performSearch = (query, ...rest) => {
    const results = sphinxSearch(query, ...rest);
    const ours = matches(query);
    const places = new Set(ours.map((r) => r[0] + r[2]));
    // Sphinx shows results from the end of the list.
    return [...results.filter((r) => !places.has(r[0] + r[2])), ...ours.reverse()];
  };
})();
