// Draws the laglista's status chart with the vendored Chart.js from the figures the page carries in
// data-chart (no inline script, so the Content-Security-Policy holds). The same figures are links beside it.
(function () {
  "use strict";
  const root = document.querySelector("[data-register-chart]");
  if (!root || typeof window.Chart === "undefined") return;
  const data = JSON.parse(root.dataset.chart);
  const colours = { compliant: "#16794c", partial: "#b7791f", non_compliant: "#b42318",
    not_assessed: "#8a93a3", not_applicable: "#cfd5de" };
  const total = data.values.reduce((a, b) => a + b, 0);
  new window.Chart(root.querySelector("canvas"), {
    type: "doughnut",
    data: { labels: data.labels, datasets: [{ data: data.values, backgroundColor: data.keys.map((k) => colours[k]) }] },
    options: {
      responsive: true, maintainAspectRatio: false, animation: false,
      plugins: {
        legend: { position: "right" },
        tooltip: { callbacks: { label: (c) => `${c.label}: ${c.parsed} av ${total}` } },
      },
    },
  });
  root.dataset.chartReady = "true";
})();
