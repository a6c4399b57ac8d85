// esbuild injects this into the console bundle: the service's CSV functions use Node's Buffer, and the
// `buffer` package is the same API for browsers.
export { Buffer } from 'buffer';
