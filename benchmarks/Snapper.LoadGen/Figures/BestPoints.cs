namespace Snapper.LoadGen.Figures;

/// <summary>
/// Each system at its best concurrency: where an experiment ran a setting at several numbers of
/// transactions in flight, a chart and the summary take, per system, the run that committed most,
/// so no system is shown at a concurrency that suits only another.
/// </summary>
public static class BestPoints
{
    /// <summary>The best run of <paramref name="mode"/> at <paramref name="setting"/> of <paramref name="experiment"/>, or null if it did not run there.</summary>
    public static FigurePoint? At(IEnumerable<FigurePoint> points, string experiment, string setting, string mode) =>
        points.Where(p => p.Experiment == experiment && p.Setting == setting && p.Mode == mode).MaxBy(p => p.Throughput);

    /// <summary>Per setting, the best run of each system among <paramref name="points"/>.</summary>
    public static IEnumerable<FigurePoint> Of(IEnumerable<FigurePoint> points) =>
        points.GroupBy(p => (p.Experiment, p.Setting, p.Mode)).Select(g => g.MaxBy(p => p.Throughput)!);
}
