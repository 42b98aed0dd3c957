/** asl-validator ships no types: the one call the tests make. */
declare module 'asl-validator' {
  type AslError = { 'Error code': string; Message: string };
  const aslValidator: (definition: unknown) => { isValid: boolean; errors: AslError[] };
  export default aslValidator;
}
