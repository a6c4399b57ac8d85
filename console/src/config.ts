// Where the API is: config.json beside index.html, written at deploy time by the CDK stack. The local
// runtime serves the console and the API from one origin, so an empty apiUrl means "this origin".
// `people`: the user pool people sign in to (its endpoint and the console's app client); without it
// the console offers API-key sign-in only.
export interface PeopleConfig {
  endpoint: string;
  clientId: string;
}

export interface ConsoleConfig {
  apiUrl: string;
  people?: PeopleConfig;
}

function peopleOf(value: unknown): PeopleConfig | undefined {
  const people = value as { endpoint?: unknown; clientId?: unknown } | undefined;
  return typeof people?.endpoint === 'string' && typeof people.clientId === 'string'
    ? { endpoint: people.endpoint, clientId: people.clientId }
    : undefined;
}

export async function loadConfig(): Promise<ConsoleConfig> {
  try {
    const response = await fetch('config.json', { cache: 'no-store' });
    if (!response.ok) return { apiUrl: '' };
    const body = (await response.json()) as { apiUrl?: unknown; people?: unknown };
    const people = peopleOf(body.people);
    return { apiUrl: typeof body.apiUrl === 'string' ? body.apiUrl : '', ...(people ? { people } : {}) };
  } catch {
    return { apiUrl: '' };
  }
}
