export * from './answers-file.js';
export * from './answers-source.js';
export * from './finalize-answers.js';
export * from './prepare-answers.js';
export * from './sweep-reviews.js';
