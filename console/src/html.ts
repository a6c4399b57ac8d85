// htm bound to Preact's h: JSX-like templates with no compile step beyond esbuild's bundling.
import htm from 'htm';
import { h } from 'preact';

export const html = htm.bind(h);
