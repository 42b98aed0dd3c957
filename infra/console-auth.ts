/**
 * Who may use the console: a Cognito user pool of people an administrator created (no sign-up),
 * signing in with their email, a strong password and a TOTP app (MFA required), through the
 * hosted UI; the page is a public client (no secret) using the authorization code grant with
 * PKCE and a nonce (web/src/auth.ts, oidc-client-ts) and sends the ID token to the API.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AccountRecovery,
  FeaturePlan,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolDomain,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import type { ConsoleConfig } from './console-config.js';
import { acknowledge } from './nag.js';

export type ConsoleAuthProps = {
  console: ConsoleConfig;
  /** `https://<distribution domain>`: the page, where Cognito sends the browser back. */
  origin: string;
};

export class ConsoleAuth extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  readonly domain: UserPoolDomain;
  /** The page's URL, `<origin>/`: the client's only callback and logout URL. */
  readonly redirectUri: string;

  constructor(scope: Construct, id: string, props: ConsoleAuthProps) {
    super(scope, id);
    this.redirectUri = `${props.origin}/`;
    this.userPool = createUserPool(this);
    this.client = this.userPool.addClient('ConsoleClient', {
      generateSecret: false,
      // The hosted UI signs people in; the page never calls InitiateAuth itself.
      authFlows: { userSrp: false },
      oAuth: {
        // PKCE: the page sends code_challenge (S256) and the verifier; no implicit grant.
        flows: { authorizationCodeGrant: true, implicitCodeGrant: false },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
        callbackUrls: [this.redirectUri],
        logoutUrls: [this.redirectUri],
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      // Short-lived tokens: the page sends only the ID token, never refreshes, and signs in again
      // when it expires.
      idTokenValidity: Duration.minutes(60),
      accessTokenValidity: Duration.minutes(60),
      refreshTokenValidity: Duration.minutes(60),
      authSessionValidity: Duration.minutes(3),
    });
    this.domain = this.userPool.addDomain('HostedUi', {
      cognitoDomain: { domainPrefix: props.console.authDomainPrefix },
      managedLoginVersion: ManagedLoginVersion.CLASSIC_HOSTED_UI,
    });
  }

  /** The hosted UI's base URL, `https://<prefix>.auth.<region>.amazoncognito.com`. */
  get hostedUiUrl(): string {
    return this.domain.baseUrl();
  }

  /**
   * The user pool's issuer, written as the API's JWT authorizer writes it: the page's OpenID
   * authority (its discovery document lists the hosted UI's endpoints).
   */
  get issuer(): string {
    return `https://cognito-idp.${Stack.of(this).region}.amazonaws.com/${this.userPool.userPoolId}`;
  }
}

const createUserPool = (scope: Construct): UserPool => {
  const userPool = new UserPool(scope, 'UserPool', {
    featurePlan: FeaturePlan.ESSENTIALS,
    selfSignUpEnabled: false,
    signInAliases: { email: true },
    signInCaseSensitive: false,
    standardAttributes: { email: { required: true, mutable: true } },
    autoVerify: { email: true },
    mfa: Mfa.REQUIRED,
    mfaSecondFactor: { sms: false, otp: true, email: false },
    passwordPolicy: {
      minLength: 14,
      requireLowercase: true,
      requireUppercase: true,
      requireDigits: true,
      requireSymbols: true,
      passwordHistorySize: 5,
      tempPasswordValidity: Duration.days(3),
    },
    accountRecovery: AccountRecovery.EMAIL_ONLY,
    userInvitation: {
      emailSubject: 'NCM console: your account',
      emailBody:
        'An account was created for you on the NCM console. Sign in with {username} and the temporary ' +
        'password {####}, then choose a password and set up an authenticator app.',
    },
    deletionProtection: true,
    // The people who may sign in outlive any redeploy of the console.
    removalPolicy: RemovalPolicy.RETAIN,
  });
  acknowledge(
    userPool,
    'ESSENTIALS, not PLUS: threat protection (adaptive authentication, compromised-credential checks) ' +
      'is billed per monthly active user on PLUS. The pool holds a few people an administrator created ' +
      '(no self sign-up), each with a 14-character password and a required TOTP second factor.',
    'AwsSolutions-COG8',
  );
  return userPool;
};
