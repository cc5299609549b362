// Behaviour every page shares. Kept out of the HTML so the Content-Security-Policy needs no 'unsafe-inline'.
(function () {
  // The workspace switcher: choosing a workspace opens it.
  document.addEventListener("change", (event) => {
    const select = event.target.closest("select[data-navigate]");
    if (select && select.value) location.href = select.value;
  });

  // Partials marked data-swap-errors carry their own Swedish error message: show them on 4xx too
  // (htmx swaps only 2xx answers by default).
  document.addEventListener("htmx:beforeSwap", (event) => {
    const status = event.detail.xhr.status;
    if (status >= 400 && status < 500 && event.detail.target.closest("[data-swap-errors]")) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
})();
