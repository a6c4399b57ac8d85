import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { functions } from '../../functions/wiring';

const root = path.resolve(__dirname, '../..');

describe('sample events for npm run invoke', () => {
  it.each(functions.map((f) => [f.name]))('events/%s.json exists and is JSON', (name) => {
    const file = path.join(root, 'events', `${name}.json`);
    expect(existsSync(file)).toBe(true);
    expect(() => JSON.parse(readFileSync(file, 'utf8'))).not.toThrow();
  });
});
