/**
 * Contract: SIM openings the simulated registry is still verifying are confirmed a set time after
 * `GET /sim-openings` first asks about the NCM, on the sandbox clock: what the daily SIM sweep
 * of a client relies on to see a verdict's openings move on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../local/sandbox/sandbox.js';
import { api } from '../helpers/http.js';

let sb: Sandbox;
let client: ReturnType<typeof api>;
const HOUR = 3600;

beforeAll(async () => {
  sb = await startSandbox({ log: 'silent', seed: 'contract-sim', simConfirmAfterSeconds: 2 * HOUR });
  client = api(sb);
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

const simOpenings = async (ncm: string) =>
  (await client.get(`/sim-openings?ncm=${ncm}&operation=import`)).body as {
    status: string;
    openings: { code: string; description: string }[];
    verified_at: string | null;
  };

describe('GET /sim-openings of an NCM being verified', () => {
  it('answers verifying until the delay since the first ask has passed, then what the registry confirmed', async () => {
    // Act: first asked, then just before the delay, then at it
    const first = await simOpenings('84139190');
    sb.advanceClock(2 * HOUR - 1);
    const before = await simOpenings('84139190');
    sb.advanceClock(1);
    const after = await simOpenings('84139190');

    // Assess
    expect([first.status, before.status]).toEqual(['verifying', 'verifying']);
    expect(first.verified_at).toBeNull();
    expect(after.status).toBe('available');
    expect(after.openings.map((opening) => opening.code)).toEqual(['8413919010', '8413919090']);
    expect(after.verified_at).not.toBeNull();
  });

  it('counts the delay per NCM from its own first ask, and confirms one opening, or none', async () => {
    // Prepare: one NCM asked an hour before the others
    await simOpenings('03043100');
    sb.advanceClock(HOUR);
    await simOpenings('09030090');

    // Act
    sb.advanceClock(HOUR);
    const asked = [await simOpenings('03043100'), await simOpenings('09030090')];
    sb.advanceClock(HOUR);
    const later = await simOpenings('09030090');

    // Assess
    expect(asked.map((answer) => answer.status)).toEqual(['available', 'verifying']);
    expect(asked[0]?.openings).toEqual([
      { code: '0304310000', description: 'Filés de tilápia frescos ou refrigerados' },
    ]);
    expect(later).toMatchObject({ status: 'none', openings: [] });
  });

  it('never confirms an NCM the catalogue does not know, and forgets the first asks on reset', async () => {
    // Prepare
    await simOpenings('99999999');
    await simOpenings('70109021');
    sb.advanceClock(3 * HOUR);
    expect((await simOpenings('99999999')).status).toBe('verifying');

    // Act
    sb.reset();
    const afterReset = await simOpenings('70109021');

    // Assess
    expect(afterReset.status).toBe('verifying');
  });
});
