// Behaviour every page shares. Kept out of the HTML so the Content-Security-Policy needs no 'unsafe-inline'.
(function () {
  // The workspace switcher: choosing a workspace opens it.
  document.addEventListener("change", (event) => {
    const select = event.target.closest("select[data-navigate]");
    if (select && select.value) location.href = select.value;
  });
})();
