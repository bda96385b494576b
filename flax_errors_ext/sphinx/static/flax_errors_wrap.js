// Long CamelCase error names wrap between words, not mid-word: in the navigation and
// in the entries' headings (a phone shows "ScopeParamShape" / "Error", never
// "ScopeParamShapeErr" / "or"). A <wbr> goes before each inner capital
// (ApplyScope<wbr>Invalid<wbr>Variables...). Text nodes only: what is copied or
// searched stays the name itself, and a heading keeps its anchor link.
document.addEventListener("DOMContentLoaded", () => {
  const camel = /^[A-Z][A-Za-z0-9]{15,}$/;
  const places = document.querySelectorAll(
    "nav a, section.flax-errors-entry > :is(h1, h2, h3, h4), .flax-errors-summary-name",
  );
  for (const place of places) {
    for (const node of [...place.childNodes]) {
      const text = node.nodeType === Node.TEXT_NODE ? node.textContent.trim() : "";
      if (!camel.test(text)) continue;
      const parts = document.createDocumentFragment();
      text.split(/(?=[A-Z][a-z])/).forEach((word, index) => {
        if (index) parts.appendChild(document.createElement("wbr"));
        parts.appendChild(document.createTextNode(word));
      });
      node.replaceWith(parts);
    }
  }
});
