// Render the mathematics that pymdownx.arithmatex (generic mode) leaves in the page:
// inline \( … \) in <span class="arithmatex"> and display \[ … \] in <div class="arithmatex">.
// KaTeX is served from the site itself (javascripts/katex/), so the pages render offline.
(function () {
  function render() {
    if (typeof renderMathInElement !== "function") { return; }
    document.querySelectorAll(".arithmatex").forEach(function (el) {
      renderMathInElement(el, {
        delimiters: [
          { left: "\\(", right: "\\)", display: false },
          { left: "\\[", right: "\\]", display: true }
        ],
        throwOnError: false
      });
    });
  }
  if (typeof document$ !== "undefined") {     // Material's instant navigation, when enabled
    document$.subscribe(render);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", render);
  } else {
    render();
  }
})();
