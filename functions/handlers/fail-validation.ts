// Event handler stub until its issue lands.
export const handler = async (): Promise<never> => {
  throw new Error('Not implemented');
};
