// Where the API is: config.json beside index.html, written at deploy time by the CDK stack. The local
// runtime serves the console and the API from one origin, so an empty apiUrl means "this origin".
export interface ConsoleConfig {
  apiUrl: string;
}

export async function loadConfig(): Promise<ConsoleConfig> {
  try {
    const response = await fetch('config.json', { cache: 'no-store' });
    if (!response.ok) return { apiUrl: '' };
    const body = (await response.json()) as { apiUrl?: unknown };
    return { apiUrl: typeof body.apiUrl === 'string' ? body.apiUrl : '' };
  } catch {
    return { apiUrl: '' };
  }
}
