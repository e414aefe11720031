/**
 * Human review closes the loop: pick rows for people to label (queue), the review page's form
 * fields (form), label rows and Judge Agreement on them per judge version (labels), and
 * corrections promoted to the golden set (golden).
 */
export * from './select';
export * from './form';
export * from './labels';
export * from './golden';
