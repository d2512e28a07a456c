import { describeChaos } from './support/scenario';

describeChaos(1);
