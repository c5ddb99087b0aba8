/** The Redis Cluster slot of a key (CRC16 of its hash tag, or of the whole key), as ioredis computes it. */
declare module 'cluster-key-slot' {
  function calculateSlot(key: string): number;
  export default calculateSlot;
}
