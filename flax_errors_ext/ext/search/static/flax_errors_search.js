/*
 * flax-errors: pasted error text finds its entry, as `flax-errors explain` finds it.
 *
 * Sphinx's search ranks whole pages, and one page holds all of a module's errors.
 * This runs explain's lookup (flax_errors_ext/model/lookup/find.py) on the query and
 * puts the entries it answers with, with their anchors, at the top of Sphinx's own
 * results. It holds no knowledge of its own: the build writes every text's pattern
 * and normalised form (flax_errors_search_data.js, each entry's `rules`) and the
 * variable kinds, paste syntax and thresholds (flax_errors_search_settings.js), all
 * from the Python that explain runs. Steps, in explain's order: a bare name; a URL
 * whose anchor is an entry; the class the text names; the message, matched against
 * a documented one's pattern or as a part of it, else nearly alike with the same
 * distinctive values. Text that matches no entry adds no result: Sphinx's own stay.
 * Nothing here builds HTML: Sphinx escapes what it shows.
 */
"use strict";

(() => {
  if (typeof Search === "undefined" || typeof Search._performSearch !== "function") return;
  const settings = window.FLAX_ERRORS_SEARCH_SETTINGS;
  if (!settings) return;
  const MAX_RESULTS = 5;
  const STRENGTH = { message: 3, alike: 2 };
  const syntax = settings.syntax;
  const NAME = new RegExp(`^(?:${syntax.name})$`);
  const URL = new RegExp(syntax.url, "g");
  const FRAGMENT = new RegExp(syntax.fragment, "g");
  const EXCEPTION_LINE = new RegExp(syntax.exception_line, "gm");
  const LINK = new RegExp(syntax.link, "g");
  const VARIABLE = new RegExp(
    settings.kinds.map(({ name, pattern }) => `(?<${name}>${pattern})`).join("|"),
    "g",
  );
  const PLACEHOLDER = Object.fromEntries(settings.kinds.map((k) => [k.name, k.placeholder]));
  // JAX's note about the frames it filtered, pasted with its message: not the error's
  // words. A search field holds one line, so the note may come with spaces for breaks.
  const JAX_NOTE = /-{20}\s*For simplicity, JAX has removed its internal frames.*?(?:to include these\.|$)/gs;
  // paste.py's as_raised: JAX's wrapper of the error raised, where frames were not
  // filtered, and pytest's marks before the lines of the error it reports.
  const UNFILTERED = new RegExp(syntax.unfiltered, "gm");
  const PYTEST_MARK = new RegExp(syntax.pytest_mark, "gm");
  const asRaised = (text) =>
    text
      .replace(/\r\n/g, "\n")
      .replace(JAX_NOTE, " ")
      .replace(UNFILTERED, "")
      .replace(PYTEST_MARK, "");

  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const compiled = new Map();
  const pattern = (source) => {
    if (!compiled.has(source)) compiled.set(source, new RegExp(source, "s"));
    return compiled.get(source);
  };

  const entries = (window.FLAX_ERRORS_SEARCH || []).map((entry) => ({
    entry,
    named: new RegExp(`(?<![\\w])${escape(entry.name)}(?!\\w)`, "g"),
    rules: entry.rules || [],
  }));

  // patterns.py's normalise: variable parts become placeholders, case and spacing folded.
  const normalise = (text) =>
    text
      .replace(VARIABLE, (...args) => {
        const groups = args[args.length - 1];
        const kind = Object.keys(groups).find((name) => groups[name] !== undefined);
        return PLACEHOLDER[kind || "space"];
      })
      .toLowerCase()
      .split(/\s+/)
      .filter(Boolean)
      .join(" ");

  // paste.py's strip_class: no class before the message, no link after it.
  const stripClass = (message) => {
    EXCEPTION_LINE.lastIndex = 0;
    const head = EXCEPTION_LINE.exec(message);
    let text = head && head.index === 0 ? message.slice(head[0].length) : message;
    text = text.replace(LINK, "").trimEnd();
    return (text.endsWith("...") ? text.slice(0, -3) : text).trimEnd();
  };

  // paste.py's last_error_start: where the last error's traceback (or chain line) starts.
  const LAST_ERROR = new RegExp(syntax.last_error, "gm");
  const lastErrorStart = (text) => {
    const found = [...text.matchAll(LAST_ERROR)];
    return found.length ? found[found.length - 1].index : -1;
  };
  // paste.py's chained_from: the paste before its last chain line, or null.
  const chainedFrom = (text) => {
    const chains = [...text.matchAll(LAST_ERROR)].filter((m) => !m[0].startsWith("Traceback"));
    return chains.length ? text.slice(0, chains[chains.length - 1].index) : null;
  };

  // paste.py's raised_line: after the last traceback header, the first line that names
  // an exception class, else the last "Name:" line, else a class named mid-line; -1 for none.
  const EXCEPTION_CLASS = new RegExp(syntax.exception_class);
  const INLINE_EXCEPTION = new RegExp(syntax.inline_exception, "g");
  const raisedLine = (text) => {
    const header = lastErrorStart(text);
    // matchAll starts where the shared pattern's last exec (stripClass) stopped.
    EXCEPTION_LINE.lastIndex = 0;
    const lines = [...text.matchAll(EXCEPTION_LINE)].filter((m) => m.index > header);
    if (!lines.length) {
      // Else the first class named after other words on its line (a title, a log prefix).
      const inline = [...text.matchAll(INLINE_EXCEPTION)].filter((m) => m.index > header);
      return inline.length ? inline[0].index : -1;
    }
    const named = lines.filter((m) => EXCEPTION_CLASS.test(m[0].replace(/[:\s]+$/, "")));
    return (named.length ? named[0] : lines[lines.length - 1]).index;
  };

  // paste.py's message_body: the exception line on, without its class.
  const messageBody = (text) => {
    text = asRaised(text);
    const start = raisedLine(text);
    return stripClass(start >= 0 ? text.slice(start) : text).trim();
  };
  // paste.py's wrapped_messages: each paragraph of a message after its first.
  const wrappedMessages = (text) =>
    messageBody(text)
      .split(/\n[ \t]*\n/)
      .slice(1)
      .map((paragraph) => paragraph.trim())
      .filter(Boolean);
  // find.py's _ranked: of a long message, its first and last halves are compared.
  const comparedBody = (query) => {
    const body = messageBody(query);
    const keep = settings.message_chars / 2;
    return body.length <= 2 * keep ? body : `${body.slice(0, keep)}\n${body.slice(-keep)}`;
  };

  // paste.py's pasted_class: the class its exception line names, without its module.
  const pastedClass = (text) => {
    text = asRaised(text);
    const start = raisedLine(text);
    if (start < 0) return "";
    const line = text.slice(start).split(": ", 1)[0];
    return line.split(".").pop();
  };

  // difflib.SequenceMatcher(None, a, b, autojunk=False).ratio(), as find.py ranks by.
  const ratio = (a, b) => {
    if (!a.length && !b.length) return 1;
    const positions = new Map();
    for (let j = 0; j < b.length; j++) {
      if (!positions.has(b[j])) positions.set(b[j], []);
      positions.get(b[j]).push(j);
    }
    let matched = 0;
    const queue = [[0, a.length, 0, b.length]];
    while (queue.length) {
      const [alo, ahi, blo, bhi] = queue.pop();
      let besti = alo;
      let bestj = blo;
      let size = 0;
      let lengths = new Map();
      for (let i = alo; i < ahi; i++) {
        const next = new Map();
        for (const j of positions.get(a[i]) || []) {
          if (j < blo) continue;
          if (j >= bhi) break;
          const k = (lengths.get(j - 1) || 0) + 1;
          next.set(j, k);
          if (k > size) [besti, bestj, size] = [i - k + 1, j - k + 1, k];
        }
        lengths = next;
      }
      if (!size) continue;
      matched += size;
      if (alo < besti && blo < bestj) queue.push([alo, besti, blo, bestj]);
      if (besti + size < ahi && bestj + size < bhi) {
        queue.push([besti + size, ahi, bestj + size, bhi]);
      }
    }
    return (2 * matched) / (a.length + b.length);
  };

  const keepsDistinctive = (known, flat) =>
    settings.distinctive.every((mark) => flat.split(mark).length >= known.split(mark).length);

  const note = (entry, rule) => {
    if (!rule) return entry.headline;
    if (rule.kind === "seen-as") {
      return `Also seen as this error: ${rule.note || "the same mistake, where this one is not in place."}`;
    }
    if (rule.kind === "older") {
      return `Worded as flax ${rule.note} worded it; today's text is on the entry.`;
    }
    return entry.headline;
  };

  // find.py's _ranked, for one entry: its text the message shows best, and how.
  const spaced = (text) => text.toLowerCase().split(/\s+/).filter(Boolean).join(" ");

  // paste.py's frame_files and shows_frame: a traceback frame in a file of the package.
  const frameFiles = (text) =>
    [...text.matchAll(new RegExp(settings.syntax.frame_file, "gm"))].map((m) =>
      m.slice(1).find(Boolean).replace(/\\/g, "/"),
    );
  // paste.py's code_form: code as compared, no spaces, every string in single quotes.
  const codeForm = (code) => code.replace(/\s+/g, "").replaceAll('"', "'");
  const showsFrame = (text, pkg) =>
    frameFiles(text).some((file) => `/${file}`.includes(`/${pkg}/`));

  // paste.py's raised_elsewhere: the innermost frame in the sites' library, none at a
  // site; or in a library that never calls into JAX.
  const FOREIGN = new RegExp(syntax.foreign);
  const raisedElsewhere = (query, sites) => {
    const start = Math.max(lastErrorStart(query), 0);
    const frames = frameFiles(query.slice(start));
    if (!frames.length) return false;
    const innermost = `/${frames[frames.length - 1]}`;
    if (!sites.some((site) => innermost.includes(`/${site.split("/")[0]}/`))) {
      return FOREIGN.test(innermost);
    }
    return !frames.some((frame) => sites.some((site) => `/${frame}`.endsWith(`/${site}`)));
  };

  // paste.py's raised_at_site: the innermost frame, at a site, raises the class itself.
  const raisedAtSite = (query, name, sites) => {
    const text = query.replace(/\\/g, "/");
    const frames = [...text.matchAll(new RegExp(settings.syntax.frame_file, "gm"))];
    if (!frames.length || !sites.length) return false;
    const last = frames[frames.length - 1];
    const innermost = `/${last.slice(1).find(Boolean)}`;
    const raising = new RegExp(`^[\\s>-]*(?:\\d+\\s+)?raise (?:[\\w.]+\\.)?${escape(name)}\\(`, "m");
    return (
      raising.test(text.slice(last.index + last[0].length)) &&
      sites.some((site) => innermost.endsWith(`/${site}`))
    );
  };

  // find.py's _ranked: a paste that names APIs as code, none of which the entry's texts
  // name (shard_map in_specs where they have tree_map tree), is another API's error.
  const apiNames = (flat) => new Set(flat.match(new RegExp(settings.api_name, "g")) || []);
  const ownsApis = (rules, flat) => {
    const theirs = new Set(rules.flatMap((rule) => [...apiNames(rule.known)]));
    const pasted = [...apiNames(flat)];
    return !pasted.length || !theirs.size || pasted.some((name) => theirs.has(name));
  };

  const compareRanks = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  const bestRule = (rules, body, flat, raised, query) => {
    const pasted = spaced(body);
    if (!ownsApis(rules, flat)) return null;
    let best = null;
    for (const rule of rules) {
      // find.py's _ranked: a builtin's message answers only a paste of its class, and
      // Python's own words for any object only a traceback with a frame of the library.
      if (raised && rule.raised && rule.raised !== raised) continue;
      // Or, for the reader's own code, the call they are about as the paste shows it.
      const called = rule.code && codeForm(query).includes(rule.code);
      if (rule.context && !showsFrame(query, rule.context) && !called) continue;
      if (rule.sites?.length && raisedElsewhere(query, rule.sites)) continue;
      if (rule.plain && !keepsDistinctive(flat, rule.known)) continue;
      const score = ratio(rule.known, flat);
      let strength = 0;
      const whole = pattern(rule.pattern).test(body);
      if (whole) strength = STRENGTH.message;
      else if (rule.plain) {
        // find.py's _shows for a plain text: a part of it as written, quoted values too,
        // and never a message merely alike.
        if (pasted.length >= settings.min_fragment && spaced(rule.documented).includes(pasted)) {
          strength = STRENGTH.message;
        }
      } else if (flat.length >= settings.min_fragment && rule.known.includes(flat)) {
        strength = STRENGTH.message;
      } else if (score >= settings.min_alike && keepsDistinctive(rule.known, flat)) {
        strength = STRENGTH.alike;
      }
      // find.py's _rank: a message shown whole that names the library's own class says more.
      const rank = [strength, whole ? rule.specific || 0 : 0, score];
      if (strength && (!best || compareRanks(rank, best.rank) > 0)) best = { rule, rank };
    }
    return best;
  };

  // paste.py's said_lines: the lines that say something, no traceback header or frame.
  const NOT_SAID = new RegExp(syntax.not_said);
  const saysSomething = (text) =>
    text.split("\n").some((line) => line.trim() && !NOT_SAID.test(line));

  // find.py's _closest: a class named claims a paste only where its message (if it
  // has one, and is not frames alone) is like one of the entry's texts: a runtime
  // error of any cause is a JaxRuntimeError.
  const resembles = (rules, query) => {
    const body = comparedBody(query);
    if (!body.trim() || !saysSomething(query) || !rules.length) return true;
    const flat = normalise(body);
    const own = ownsApis(rules, flat);
    return rules.some(
      (rule) =>
        !(rule.plain && !keepsDistinctive(flat, rule.known)) &&
        ((own && pattern(rule.pattern).test(body)) ||
          (own && flat.length >= settings.min_fragment && rule.known.includes(flat)) ||
          ratio(rule.known, flat) >= settings.min_similarity),
    );
  };

  // A name, URL or class identifies the entry; its text the message shows, if any,
  // still says what was matched (a past release's wording, another error's text).
  const certain = (found, query) => {
    const body = comparedBody(query);
    const flat = normalise(body);
    const raised = pastedClass(query);
    return found.map((entry) => {
      const rules = entries.find((e) => e.entry === entry)?.rules || [];
      const best = bestRule(rules, body, flat, raised, query);
      return { entry, rule: best ? best.rule : null, rank: [4, 0, 1] };
    });
  };

  // find.py's find_hits: a class a library renamed reads as today's name.
  const renamed = settings.old_class_names;
  const OLD_CLASS = new RegExp(
    `(?<!\\w)(?:[\\w.]*\\.)?(${Object.keys(renamed).join("|")})(?!\\w)`,
    "g",
  );

  // find.py's find: the entries the query means, best first; none for other text.
  // paste.py's bounded: no terminal colours (or what is left of them).
  const COLOUR = new RegExp(syntax.colour, "g");
  const lookup = (raw) => {
    let query = raw.replace(COLOUR, "").trim();
    if (!query) return [];
    if (NAME.test(query)) {
      const folded = query.toLowerCase();
      const all = entries.map(({ entry }) => entry);
      const exact = all.filter((e) => e.name === query || e.qualname === query);
      return certain(
        exact.length
          ? exact
          : all.filter((e) => [e.name, e.qualname].some((n) => n.toLowerCase() === folded)),
        query,
      );
    }
    query = query.replace(OLD_CLASS, (_, name) => renamed[name]);
    const anchors = [...query.matchAll(URL)].flatMap(([url]) =>
      [...url.matchAll(FRAGMENT)].map((m) => m[1]),
    );
    const byUrl = anchors
      .reverse()
      .map((anchor) => entries.find(({ entry }) => entry.qualname === anchor))
      .filter(Boolean);
    if (byUrl.length) return certain([...new Set(byUrl.map(({ entry }) => entry))], query);
    const text = query.replace(URL, " ");
    const named = entries
      .map(({ entry, named: re, rules }) => [
        Math.max(-1, ...[...text.matchAll(re)].map((m) => m.index)),
        entry,
        rules,
      ])
      .filter(
        ([at, entry, rules]) =>
          at >= 0 &&
          (resembles(rules, query) ||
            raisedAtSite(query, entry.name, rules.flatMap((rule) => rule.sites || []))),
      )
      .sort((a, b) => b[0] - a[0]);
    if (named.length) return certain(named.map(([, entry]) => entry), query);
    const found = ranked(query);
    if (found.length) return found;
    // find.py's find_hits: a message pasted without its class, more pasted after it;
    // else the error that the one raised last was raised from.
    const opening = openingLine(query);
    if (opening !== null) {
      return ranked(opening).filter((hit) => hit.rank[0] === STRENGTH.message);
    }
    // Another error's message that a library wrapped in words of its own.
    for (const wrapped of wrappedMessages(query)) {
      const shown = ranked(wrapped).filter(({ rule }) => pattern(rule.pattern).test(wrapped));
      if (shown.length) return shown;
    }
    const cause = chainedFrom(query);
    return cause ? lookup(cause) : [];
  };

  const ranked = (query) => {
    const body = comparedBody(query);
    const flat = normalise(body);
    const raised = pastedClass(query);
    const found = [];
    for (const { entry, rules } of entries) {
      const best = bestRule(rules, body, flat, raised, query);
      if (best) found.push({ entry, ...best });
    }
    return found.sort((a, b) => compareRanks(b.rank, a.rank));
  };

  // paste.py's opening_line: of a paste with no exception line, its first line that says
  // something, where it has more than one.
  const openingLine = (text) => {
    text = asRaised(text);
    const said = text
      .split("\n")
      .filter((line) => line.trim() && !NOT_SAID.test(line))
      .map((line) => line.trim());
    return raisedLine(text) < 0 && said.length > 1 ? said[0] : null;
  };

  const results = (query) =>
    lookup(query)
      .slice(0, MAX_RESULTS)
      .map(({ entry, rule, rank }) => [
        entry.docname,
        entry.name,
        "#" + entry.anchor,
        note(entry, rule) || null,
        Math.round(100 * (rank[0] + rank[2])),
        entry.docname,
        "flax-errors",
      ]);

  // For the tests, which hold the site search to explain's answers on whole corpora.
  window.FLAX_ERRORS_LOOKUP = (query) => lookup(query).map(({ entry }) => entry.qualname);

  const sphinxSearch = Search._performSearch;
  Search._performSearch = (query, ...rest) => {
    const found = sphinxSearch(query, ...rest);
    const ours = results(query);
    const places = new Set(ours.map((r) => r[0] + r[2]));
    // Sphinx shows results from the end of the list.
    return [...found.filter((r) => !places.has(r[0] + r[2])), ...ours.reverse()];
  };
})();
