/* murlog Google Analytics: one manual page_view (the automatic one is off,
   so it is never counted twice). The values come from this script
   element's data-* attributes, written by the theme's head partial: no
   inline script is needed. */
(function () {
  'use strict';

  var el = document.currentScript;
  if (!el || !el.dataset || !el.dataset.measurementId) return;
  var d = el.dataset;

  window.dataLayer = window.dataLayer || [];
  // gtag.js reads the arguments objects themselves from the queue.
  function gtag() {
    window.dataLayer.push(arguments);
  }
  if (typeof window.gtag !== 'function') window.gtag = gtag;

  gtag('js', new Date());
  gtag('config', d.measurementId, { send_page_view: false });
  gtag('event', 'page_view', {
    page_location: d.pageLocation || window.location.href,
    page_title: d.pageTitle || document.title,
    content_group: d.contentGroup || '',
    content_id: d.contentId || '',
    content_type: d.contentType || ''
  });
})();
