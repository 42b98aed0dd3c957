/**
 * The credentials every function's AWS SDK clients sign with, in the bundles (infra/function-bundles.ts
 * puts this module where the SDK's `@aws-sdk/credential-provider-node` would be): Lambda gives a
 * function its role's credentials in its environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
 * `AWS_SESSION_TOKEN`), and the local runtime gives its processes theirs the same way. The SDK's
 * default chain would also bring profiles, SSO, the instance metadata service and STS (about a
 * tenth of a small function's bundle, parsed at every cold start) for sources a function never has.
 */
import { credentialsFromEnvironment } from '../shared/aws/signed-requests.js';

/**
 * Takes the SDK's provider options (unused: the environment is the one source) and gives a provider
 * of the credentials in the process environment; it rejects, naming the variable, when one is missing.
 */
export const defaultProvider = (_options?: unknown) => async () => credentialsFromEnvironment(process.env);
