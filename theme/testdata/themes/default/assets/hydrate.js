document.documentElement.dataset.hydrated = '1';
