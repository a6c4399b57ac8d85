// The Outreach fake over real HTTP: webhooks, faults, delivery, merges and the control bridge (§6.1).
import { createHmac } from 'node:crypto';
import { startOutreachFake, type OutreachFake } from '../../fakes/outreach';
import { outreachClient } from './outreach-client';
import { startReceiver, type Receiver } from './receiver';

let fake: OutreachFake;
beforeEach(async () => {
  fake = await startOutreachFake({ webhookRetryMs: 20 });
});
afterEach(() => fake.stop());
const { connect, get, send } = outreachClient(() => fake);

describe('Outreach fake: webhooks', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.stop());

  it('signs each event with hex HMAC-SHA256 of the raw body and sends only the changed attributes', async () => {
    const seed = fake.control.seed({ users: 1, sequences: 1 });
    const t = await connect();
    const made = await send(t.access_token, 'POST', '/webhooks', {
      data: { type: 'webhook', attributes: { url: receiver.url, resource: 'sequenceState', secret: 'shh' } },
    });
    expect(made.status).toBe(201);
    expect(made.body.data.attributes.cleanupToken).toEqual(expect.any(String));
    const s = fake.control.scheduleEmail({
      mailboxId: 1,
      to: 'p@example.net',
      sequenceId: seed.sequenceIds[0],
    });
    await send(t.access_token, 'POST', `/sequenceStates/${s.sequenceStateId}/actions/pause`);
    fake.control.deleteRecord('sequenceState', s.sequenceStateId!);
    await fake.control.webhooksSettled();
    const events = receiver.received.map((r) => JSON.parse(r.body).data.meta.eventName);
    expect(events).toEqual(['sequenceState.created', 'sequenceState.updated', 'sequenceState.destroyed']);
    for (const r of receiver.received) {
      expect(r.headers['outreach-webhook-signature']).toBe(
        createHmac('sha256', 'shh').update(r.body).digest('hex'),
      );
      expect(r.headers['outreach-webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    const updated = JSON.parse(receiver.received[1]!.body).data;
    expect(Object.keys(updated.attributes).sort()).toEqual([
      'pauseReason',
      'state',
      'stateChangedAt',
      'updatedAt',
    ]);
    const destroyed = JSON.parse(receiver.received[2]!.body).data;
    expect(destroyed.attributes.state).toBe('paused');
    expect(destroyed.relationships.prospect.data.id).toBe(s.prospectId);
  });

  it('retries 3 times on a network error only, and loses the deliveries a test drops', async () => {
    fake.control.seed({ users: 1 });
    const t = await connect();
    await send(t.access_token, 'POST', '/webhooks', {
      data: {
        type: 'webhook',
        attributes: { url: 'http://127.0.0.1:9/hook', resource: 'prospect', secret: 'k' },
      },
    });
    await send(t.access_token, 'POST', '/webhooks', {
      data: {
        type: 'webhook',
        attributes: { url: receiver.url, resource: 'prospect', action: 'created', secret: 'k' },
      },
    });
    receiver.status = 500;
    fake.control.addProspect({ emails: ['a@example.net'] });
    await fake.control.webhooksSettled();
    const [down, failing] = fake.control.webhookDeliveries();
    expect(down!.attempts).toEqual(['network-error', 'network-error', 'network-error', 'network-error']);
    expect(failing!.attempts).toEqual([500]); // a 500 counts as acknowledged
    fake.control.dropWebhooks(2);
    fake.control.addProspect({ emails: ['b@example.net'] });
    await fake.control.webhooksSettled();
    expect(
      fake.control
        .webhookDeliveries()
        .slice(2)
        .map((d) => d.outcome),
    ).toEqual(['dropped', 'dropped']);
    expect(receiver.received).toHaveLength(1);
  });

  it('does not follow a redirect: a 3xx counts as the answer', async () => {
    fake.control.seed({ users: 1 });
    const t = await connect();
    await send(t.access_token, 'POST', '/webhooks', {
      data: { type: 'webhook', attributes: { url: receiver.url, resource: 'prospect', secret: 'k' } },
    });
    receiver.status = 307;
    fake.control.addProspect({ emails: ['a@example.net'] });
    await fake.control.webhooksSettled();
    expect(fake.control.webhookDeliveries()[0]).toMatchObject({ attempts: [307], outcome: 'delivered' });
    expect(receiver.received).toHaveLength(1);
  });
});

describe('Outreach fake: more of the API', () => {
  it('sorts by attributes, and can make links.next repeat so a client has to notice the loop', async () => {
    fake.control.seed({ users: 5 });
    const t = await connect();
    const sorted = await get(t.access_token, '/users?sort=-email&page[size]=2');
    expect(sorted.body.data.map((u: { attributes: { email: string } }) => u.attributes.email)).toEqual([
      'rep5@example.com',
      'rep4@example.com',
    ]);
    const second = await get(t.access_token, sorted.body.links.next);
    expect(second.body.data.map((u: { id: number }) => u.id)).toEqual([3, 2]);
    expect((await get(t.access_token, '/users?sort=shoeSize')).status).toBe(400);
    fake.control.repeatNextLink(true);
    const one = await get(t.access_token, '/users?page[size]=2');
    const two = await get(t.access_token, one.body.links.next);
    const three = await get(t.access_token, two.body.links.next);
    expect(two.body.links.next).toBe(one.body.links.next);
    expect(three.body.data).toEqual(two.body.data);
  });

  it('creates a single mailing by POST and fires mailing.bounced when it bounces', async () => {
    fake.control.seed({ users: 1, sequences: 1 });
    const receiver = await startReceiver();
    try {
      const t = await connect('mailboxes.read mailings.all webhooks.all');
      await send(t.access_token, 'POST', '/webhooks', {
        data: {
          type: 'webhook',
          attributes: { url: receiver.url, resource: 'mailing', action: 'bounced', secret: 'k' },
        },
      });
      const prospectId = fake.control.addProspect({ emails: ['p@example.net'] });
      const made = await send(t.access_token, 'POST', '/mailings', {
        data: {
          type: 'mailing',
          attributes: { subject: 'Hi', bodyHtml: '<p>x</p>' },
          relationships: {
            mailbox: { data: { type: 'mailbox', id: 1 } },
            prospect: { data: { type: 'prospect', id: prospectId } },
          },
        },
      });
      expect(made.status).toBe(201);
      expect(made.body.data.attributes).toMatchObject({
        state: 'drafted',
        mailingType: 'single',
        mailboxAddress: 'rep1@example.com',
      });
      expect((await send(t.access_token, 'POST', '/mailings', { data: { type: 'prospect' } })).status).toBe(
        422,
      );
      const s = fake.control.scheduleEmail({
        mailboxId: 1,
        to: 'q@example.net',
        sequenceId: 1,
        scheduledAt: new Date(Date.now() - 1000).toISOString(),
      });
      expect(fake.control.sendDue()).toEqual([s.mailingId]);
      fake.control.bounceMailing(s.mailingId);
      await fake.control.webhooksSettled();
      expect(receiver.received.map((r) => JSON.parse(r.body).data.meta.eventName)).toEqual([
        'mailing.bounced',
      ]);
      expect(fake.control.record('sequenceState', s.sequenceStateId!)!.attributes.state).toBe('bounced');
    } finally {
      await receiver.stop();
    }
  });
});

describe('Outreach fake: maintenance, sequence actions, delivery', () => {
  it('answers 503 scheduledServerMaintenance with an ISO Retry-After during maintenance', async () => {
    fake.control.seed({ users: 1 });
    const t = await connect();
    fake.control.maintenanceNow(30);
    const down = await get(t.access_token, '/users');
    expect(down.status).toBe(503);
    expect(down.body.errors[0].id).toBe('scheduledServerMaintenance');
    expect(down.headers.get('retry-after')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    fake.control.advanceClock(31_000);
    expect((await get(t.access_token, '/users')).status).toBe(200);
  });

  it('changes sequence.enabled only through activate and deactivate', async () => {
    const seed = fake.control.seed({ users: 1, sequences: 1 });
    const t = await connect();
    const id = seed.sequenceIds[0]!;
    const off = await send(t.access_token, 'POST', `/sequences/${id}/actions/deactivate`);
    expect(off.body.data.attributes.enabled).toBe(false);
    expect(
      (await send(t.access_token, 'POST', `/sequences/${id}/actions/activate`)).body.data.attributes.enabled,
    ).toBe(true);
    expect(
      (
        await send(t.access_token, 'PATCH', `/sequences/${id}`, {
          data: { type: 'sequence', id, attributes: { enabled: false } },
        })
      ).status,
    ).toBe(405);
    expect((await send(t.access_token, 'POST', `/sequences/${id}/actions/explode`)).status).toBe(404);
  });

  it('delivers due mailings: the sequence state advances a step, and finishes after the last', async () => {
    fake.control.seed({ users: 1 });
    const sequenceId = fake.control.addSequence({ ownerId: 1, name: 'Two steps', steps: 2 });
    const past = new Date(Date.now() - 1000).toISOString();
    const first = fake.control.scheduleEmail({
      mailboxId: 1,
      to: 'p@example.net',
      sequenceId,
      scheduledAt: past,
    });
    const later = fake.control.scheduleEmail({ mailboxId: 1, to: 'r@example.net', sequenceId });
    expect(fake.control.sendDue()).toEqual([first.mailingId]);
    const advanced = fake.control.record('sequenceState', first.sequenceStateId!)!;
    expect(advanced.attributes).toMatchObject({ state: 'active', deliverCount: 1 });
    expect(advanced.relationships.sequenceStep).not.toBe(first.sequenceStepId);
    const second = fake.control.scheduleEmail({
      mailboxId: 1,
      to: 'p@example.net',
      sequenceId,
      scheduledAt: past,
    });
    expect(second.sequenceStateId).toBe(first.sequenceStateId);
    expect(second.sequenceStepId).toBe(advanced.relationships.sequenceStep);
    expect(fake.control.sendDue()).toEqual([second.mailingId]);
    expect(fake.control.record('sequenceState', first.sequenceStateId!)!.attributes.state).toBe('finished');
    expect(fake.control.record('mailing', later.mailingId)!.attributes.state).toBe('scheduled');
  });
});

describe('Outreach fake: merged prospects', () => {
  it('looks like one destroyed prospect plus updates pointing its records at the survivor', async () => {
    const seed = fake.control.seed({ users: 1, sequences: 1 });
    const keep = fake.control.addProspect({ emails: ['pat@example.net'] });
    const s = fake.control.scheduleEmail({
      mailboxId: 1,
      to: 'Pat.Old@example.net',
      sequenceId: seed.sequenceIds[0],
    });
    fake.control.mergeProspects(keep, s.prospectId);
    const t = await connect();
    expect((await get(t.access_token, `/prospects/${s.prospectId}`)).status).toBe(404);
    const survivor = await get(t.access_token, `/prospects/${keep}`);
    expect(survivor.body.data.attributes.emails).toEqual(['pat@example.net', 'Pat.Old@example.net']);
    const state = await get(t.access_token, `/sequenceStates/${s.sequenceStateId}?include=prospect`);
    expect(state.body.data.relationships.prospect.data.id).toBe(keep);
    expect(state.body.included[0].id).toBe(keep);
  });
});

describe('Outreach fake: control over HTTP', () => {
  it('runs a control method posted to /_control/<name>', async () => {
    const res = await fetch(`${fake.controlUrl}/seed`, {
      method: 'POST',
      body: JSON.stringify([{ users: 2, sequences: 1 }]),
    });
    expect(await res.json()).toMatchObject({ result: { userIds: [1, 2], sequenceIds: [1] } });
    expect((await fetch(`${fake.controlUrl}/constructor`, { method: 'POST' })).status).toBe(404);
  });
});
