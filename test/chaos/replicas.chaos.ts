import { describeChaos } from './support/scenario';

// Two processes of the api, the gateway, the queue and the webhooks service; one of each is killed in turn.
describeChaos(2);
