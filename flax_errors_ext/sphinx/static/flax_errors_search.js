/*
 * flax-errors: pasted error text finds its entry.
 *
 * Sphinx's search ranks whole pages, and one page holds all of a module's errors.
 * This matches the query against the catalogue's error messages (written by the
 * build to flax_errors_search_data.js) and puts matching entries, with their
 * anchors, at the top of Sphinx's own results. Words are compared, not the exact
 * text, so a message naming other parameters or shapes than the documented one
 * still finds its entry. The messages include the other errors an entry is "also
 * seen as" and the wordings of past releases; a result's line says which matched.
 * Nothing here builds HTML: Sphinx escapes what it shows.
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

  // What each text an entry is found by says about the match, in the result's line.
  const texts = (entry) => [
    ...entry.messages.map((text) => ({ text, note: entry.headline })),
    ...(entry.seen_as || []).map(({ text, note }) => ({
      text,
      note: `Also seen as this error: ${note || "the same mistake, where this one is not in place."}`,
    })),
    ...(entry.older || []).map(({ text, versions }) => ({
      text,
      note: `Worded as flax ${versions} worded it; today's text is on the entry.`,
    })),
  ];

  const entries = (window.FLAX_ERRORS_SEARCH || []).map((entry) => {
    const known = texts(entry).map(({ text, note }) => ({ words: words(text), note }));
    return {
      entry,
      known,
      names: new Set([entry.name.toLowerCase(), entry.qualname.toLowerCase()]),
      words: new Set([...words(entry.qualname), ...known.flatMap((k) => [...k.words])]),
    };
  });

  const sharedWith = (asked, known) => {
    let shared = 0;
    for (const word of asked) if (known.has(word)) shared += 1;
    return shared;
  };

  // JAX's note about the frames it filtered, pasted with its message: not the error's
  // words. A search field holds one line, so the note may come with spaces for breaks.
  const JAX_NOTE = /-{20,}\s*For simplicity, JAX has removed its internal frames.*?(?:to include these\.|$)/gs;

  const matches = (query) => {
    const asked = words(query.replace(JAX_NOTE, " "));
    if (asked.size < MIN_SHARED_WORDS) return [];
    const found = [];
    for (const { entry, known, names, words: all } of entries) {
      const shared = sharedWith(asked, all);
      const share = shared / asked.size;
      if (shared < MIN_SHARED_WORDS || share < MIN_SHARE) continue;
      const named = [...asked].some((word) => names.has(word)) ? 1 : 0;
      // The text the query is closest to says what kind of match this is.
      let closest = { shared: -1, note: entry.headline };
      for (const text of known) {
        const count = sharedWith(asked, text.words);
        if (count > closest.shared) closest = { shared: count, note: text.note };
      }
      // Most of the query found, then the entry named, then the closest message.
      found.push([share + named + shared / all.size / 10, entry, closest.note]);
    }
    found.sort((a, b) => b[0] - a[0]);
    return found.slice(0, MAX_RESULTS).map(([score, entry, note]) => [
      entry.docname,
      entry.name,
      "#" + entry.anchor,
      note || null,
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
