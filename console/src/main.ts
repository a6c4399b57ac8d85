// The console's entry: read config.json, then render the app.
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { render } from 'preact';
import { App } from './app';
import { loadConfig } from './config';
import { html } from './html';

void loadConfig().then((config) => {
  const root = document.getElementById('app');
  if (root) render(html`<${App} apiUrl=${config.apiUrl} people=${config.people} />`, root);
});
