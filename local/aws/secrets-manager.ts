/**
 * Secrets Manager GetSecretValue on the wire (AWS JSON 1.1, `x-amz-target:
 * secretsmanager.GetSecretValue`). Secrets are put in-process (`putSecret`), found by name,
 * full ARN or ARN without its random suffix, as AWS resolves a SecretId. Values are never
 * logged; only in memory, never persisted.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { MonotonicClock } from '../sandbox/core/clock.js';
import { AwsError } from './errors.js';
import { readInput } from './input.js';
import type { JsonRpcService } from './router.js';

type StoredSecret = { name: string; arn: string; value: string; versionId: string; createdAt: number };

const notFound = (message = "Secrets Manager can't find the specified secret.") =>
  new AwsError('ResourceNotFoundException', message);

const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:(.+)$/;

export type SecretsOptions = { clock: MonotonicClock; region: string; accountId: string };

export class Secrets {
  private readonly byName = new Map<string, StoredSecret>();
  private readonly clock: MonotonicClock;
  private readonly region: string;
  private readonly accountId: string;

  constructor({ clock, region, accountId }: SecretsOptions) {
    this.clock = clock;
    this.region = region;
    this.accountId = accountId;
  }

  /**
   * Stores (or replaces) a secret string. `id` is a name, or an ARN to answer to exactly
   * (the ARN a stack hands its functions); returns the secret's ARN.
   */
  put(id: string, value: string): string {
    const arnMatch = SECRET_ARN.exec(id);
    let name: string;
    let arn: string;
    if (arnMatch?.[1]) {
      arn = id;
      // An ARN ends in `<name>-<6 random characters>`; the name is what comes before.
      name = /^(.+)-[A-Za-z0-9]{6}$/.exec(arnMatch[1])?.[1] ?? arnMatch[1];
    } else {
      name = id;
      const suffix = randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').slice(0, 6);
      arn = `arn:aws:secretsmanager:${this.region}:${this.accountId}:secret:${name}-${suffix}`;
    }
    this.byName.set(name, { name, arn, value, versionId: randomUUID(), createdAt: this.clock.now() });
    return arn;
  }

  private find(secretId: string): StoredSecret | undefined {
    const byName = this.byName.get(secretId);
    if (byName) return byName;
    for (const secret of this.byName.values()) {
      // Full ARN, or the partial ARN without the random suffix.
      if (secret.arn === secretId || secret.arn.startsWith(`${secretId}-`)) return secret;
    }
    return undefined;
  }

  readonly service: JsonRpcService = {
    service: 'secretsmanager',
    targetPrefix: 'secretsmanager',
    jsonVersion: '1.1',
    errorMessageMember: 'Message',
    operations: {
      GetSecretValue: (raw) => {
        const input = readInput(raw, {
          missing: (member) => new AwsError('InvalidParameterException', `${member} is required.`),
          invalid: (member, reason) => new AwsError('InvalidParameterException', `${member} ${reason}.`),
        });
        const secret = this.find(input.string('SecretId'));
        if (!secret) throw notFound();
        const versionId = input.optionalString('VersionId');
        const stage = input.optionalString('VersionStage');
        if (versionId !== undefined && versionId !== secret.versionId) {
          throw notFound(`Secrets Manager can't find the specified secret value for VersionId: ${versionId}`);
        }
        if (stage !== undefined && stage !== 'AWSCURRENT') {
          throw notFound(`Secrets Manager can't find the specified secret value for staging label: ${stage}`);
        }
        return {
          ARN: secret.arn,
          Name: secret.name,
          VersionId: secret.versionId,
          SecretString: secret.value,
          VersionStages: ['AWSCURRENT'],
          CreatedDate: secret.createdAt / 1000,
        };
      },
    },
  };
}
