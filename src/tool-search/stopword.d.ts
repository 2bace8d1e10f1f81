/** The part of `stopword` the analyzer uses. */
declare module "stopword" {
  /** English stop words, lower case. */
  export const eng: readonly string[];
}
