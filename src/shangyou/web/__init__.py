"""The browser pages (static HTML, CSS and JavaScript) served by shangyou.server."""
