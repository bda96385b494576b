// Long CamelCase error names in the navigation wrap between words, not mid-word:
// a <wbr> goes before each inner capital (ApplyScope<wbr>Invalid<wbr>Variables...).
// Text nodes only: what is copied or searched stays the name itself.
document.addEventListener("DOMContentLoaded", () => {
  const camel = /^[A-Z][A-Za-z0-9]{15,}$/;
  for (const link of document.querySelectorAll("nav a")) {
    const text = link.textContent.trim();
    if (link.children.length || !camel.test(text)) continue;
    const words = text.split(/(?=[A-Z][a-z])/);
    link.textContent = "";
    words.forEach((word, index) => {
      if (index) link.appendChild(document.createElement("wbr"));
      link.appendChild(document.createTextNode(word));
    });
  }
});
