// The five worked examples of docs/transformations.md, read from the page itself so the documented code is the code
// tested.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTransformRunner } from './transform-runner';
import type { TransformRequest } from './transform-types';

const doc = readFileSync(path.resolve(__dirname, '../../../docs/transformations.md'), 'utf8');
const examples = new Map(
  [...doc.matchAll(/```js\n\/\/ example: ([a-z0-9-]+)\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!]),
);
const context = { event_id: 'evt_1', source: 'shop', rule_id: 'rul_1' };
const request = (body: unknown, headers: Record<string, string> = {}): TransformRequest => ({
  body,
  headers: { 'content-type': 'application/json', ...headers },
  path: '/hooks',
  query: { a: '1' },
});

const runner = createTransformRunner();
afterAll(() => runner.close());

async function run(name: string, input: TransformRequest) {
  const code = examples.get(name);
  if (!code) throw new Error(`docs/transformations.md has no example ${name}`);
  const result = await runner.run(code, input, context);
  if (!result.ok) throw new Error(`${name}: ${JSON.stringify(result.error)}`);
  return result.request;
}

describe('the worked examples of docs/transformations.md', () => {
  it('are five, each found on the page', () => {
    expect([...examples.keys()].sort()).toEqual([
      'drop-secret-fields',
      'flatten-shopify-line-items',
      'github-push-to-chat',
      'header-from-payload',
      'stripe-invoice-to-billing',
    ]);
  });

  it('turns a GitHub push into a chat message', async () => {
    const push = JSON.parse(readFileSync(path.resolve(__dirname, '../../../bench/github-push.json'), 'utf8'));
    const out = await run('github-push-to-chat', request(push, { 'x-github-event': 'push' }));
    expect(out.body).toEqual({
      text: `${push.pusher.name} pushed ${push.commits.length} commit(s) to ${push.repository.full_name}:${push.ref.replace('refs/heads/', '')}`,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: expect.stringContaining('• ') } }],
    });
    expect(out.headers).toEqual({ 'content-type': 'application/json', 'x-github-event': 'push', 'x-kind': 'chat' });
    expect(out.path).toBe('/hooks');
    expect(out.query).toEqual({ a: '1' });
  });

  it("turns a Stripe invoice into a billing system's shape", async () => {
    const event = {
      type: 'invoice.paid',
      data: {
        object: {
          id: 'in_1',
          customer: 'cus_9',
          customer_email: 'ann@example.com',
          amount_paid: 12345,
          currency: 'eur',
          created: 1_764_000_000,
          lines: { data: [{ description: 'Pro plan', quantity: 1, amount: 12345 }] },
        },
      },
    };
    const out = await run('stripe-invoice-to-billing', request(event));
    expect(out.body).toEqual({
      external_id: 'in_1',
      customer: { id: 'cus_9', email: 'ann@example.com' },
      status: 'paid',
      total: { amount: 123.45, currency: 'EUR' },
      lines: [{ description: 'Pro plan', quantity: 1, amount: 123.45 }],
      issued_at: new Date(1_764_000_000_000).toISOString(),
      source_event: 'evt_1',
    });
  });

  it('adds headers computed from the payload', async () => {
    const out = await run('header-from-payload', request({ id: 42, total_price: 1500 }));
    expect(out.headers['x-order-priority']).toBe('high');
    expect(out.headers['x-idempotency-key']).toBe('shop:42');
    expect(out.body).toEqual({ id: 42, total_price: 1500 });
    const cheap = await run('header-from-payload', request({ id: 43, total_price: 10 }));
    expect(cheap.headers['x-order-priority']).toBe('normal');
  });

  it('drops secret fields, however deep, before the payload leaves', async () => {
    const body = {
      user: { name: 'ann', password: 'p', api_key: 'k', cards: [{ last4: '4242', card_number: '4242…', cvc: '1' }] },
      token: 't',
      note: 'kept',
    };
    const out = await run('drop-secret-fields', request(body, { authorization: 'Bearer x' }));
    expect(out.body).toEqual({ user: { name: 'ann', cards: [{ last4: '4242' }] }, note: 'kept' });
    expect(out.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('flattens Shopify line items', async () => {
    const order = {
      id: 820982911946154500,
      name: '#9999',
      line_items: [
        { sku: 'IPOD2008RED', title: 'IPod Nano', quantity: 2, price: '199.00' },
        { sku: 'CASE', title: 'Case', quantity: 1, price: '19.50' },
      ],
    };
    const out = await run('flatten-shopify-line-items', request(order));
    expect(out.body).toEqual([
      {
        order_id: order.id,
        order_name: '#9999',
        sku: 'IPOD2008RED',
        title: 'IPod Nano',
        quantity: 2,
        unit_price: 199,
        line_total: 398,
      },
      {
        order_id: order.id,
        order_name: '#9999',
        sku: 'CASE',
        title: 'Case',
        quantity: 1,
        unit_price: 19.5,
        line_total: 19.5,
      },
    ]);
  });
});
