// rdpkit plot: the privacy curve (ε at δ against the number of steps of an event) as an SVG file,
// written here as plain text so the program needs no plotting library. The points are
// accountant::PrivacyCurve, the same as rdpkit.plot_privacy_curve in Python.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.h"
#include "commands.h"
#include "progress_lines.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/privacy_curve.h"
#include "rdpkit/trees/file_output.h"

namespace rdpkit::tools {
namespace {

// Plot area inside a kWidth × kHeight picture, in SVG user units (pixels).
constexpr double kWidth = 640, kHeight = 400;
constexpr double kLeft = 70, kRight = 20, kTop = 40, kBottom = 55;

std::string Num(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f", value);
  return buffer;
}

std::string Label(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}

std::string Escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out += c;
    }
  }
  return out;
}

// A "nice" tick step (1, 2 or 5 × 10^k) giving about `count` ticks over [0, top].
double TickStep(double top, int count) {
  const double raw = top / count;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double factor : {1.0, 2.0, 5.0}) {
    if (factor * power >= raw) return factor * power;
  }
  return 10 * power;
}

// The picture: x = steps on a log scale (decades labelled), y = ε from 0, one polyline.
std::string Svg(const std::vector<accountant::CurvePoint>& curve, double delta,
                const std::string& title) {
  const double max_steps = static_cast<double>(curve.back().steps);
  double max_epsilon = 0;
  for (const auto& point : curve) max_epsilon = std::max(max_epsilon, point.epsilon.epsilon);
  const double y_step = max_epsilon > 0 ? TickStep(max_epsilon, 5) : 1;
  const double y_top = max_epsilon > 0 ? std::ceil(max_epsilon / y_step) * y_step : 1;
  const double x_top = std::max(1.0, std::log10(max_steps));
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto x_of = [&](double steps) { return kLeft + plot_w * std::log10(steps) / x_top; };
  auto y_of = [&](double epsilon) { return kTop + plot_h * (1 - epsilon / y_top); };

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(kWidth) +
                    "\" height=\"" + Num(kHeight) + "\" viewBox=\"0 0 " + Num(kWidth) + " " +
                    Num(kHeight) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + Num(kWidth / 2) + "\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">" +
         Escape(title) + "</text>\n";
  for (double y = 0; y <= y_top + y_step / 2; y += y_step) {  // horizontal grid, ε labels
    svg += "<line x1=\"" + Num(kLeft) + "\" x2=\"" + Num(kWidth - kRight) + "\" y1=\"" +
           Num(y_of(y)) + "\" y2=\"" + Num(y_of(y)) + "\" stroke=\"#ddd\"/>\n";
    svg += "<text x=\"" + Num(kLeft - 6) + "\" y=\"" + Num(y_of(y) + 4) +
           "\" text-anchor=\"end\">" + Label(y) + "</text>\n";
  }
  for (int decade = 0; decade <= static_cast<int>(std::floor(x_top)); ++decade) {
    const double steps = std::pow(10.0, decade);
    svg += "<line x1=\"" + Num(x_of(steps)) + "\" x2=\"" + Num(x_of(steps)) + "\" y1=\"" +
           Num(kTop) + "\" y2=\"" + Num(kTop + plot_h) + "\" stroke=\"#ddd\"/>\n";
    svg += "<text x=\"" + Num(x_of(steps)) + "\" y=\"" + Num(kTop + plot_h + 18) +
           "\" text-anchor=\"middle\">" + Label(steps) + "</text>\n";
  }
  svg += "<rect x=\"" + Num(kLeft) + "\" y=\"" + Num(kTop) + "\" width=\"" + Num(plot_w) +
         "\" height=\"" + Num(plot_h) + "\" fill=\"none\" stroke=\"black\"/>\n";
  svg += "<text x=\"" + Num(kLeft + plot_w / 2) + "\" y=\"" + Num(kHeight - 12) +
         "\" text-anchor=\"middle\">steps</text>\n";
  svg += "<text transform=\"translate(18 " + Num(kTop + plot_h / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">epsilon at delta = " + Label(delta) + "</text>\n";
  svg += "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"";
  for (const auto& point : curve) {
    svg +=
        Num(x_of(static_cast<double>(point.steps))) + "," + Num(y_of(point.epsilon.epsilon)) + " ";
  }
  svg += "\"/>\n";
  for (const auto& point : curve) {
    svg += "<circle cx=\"" + Num(x_of(static_cast<double>(point.steps))) + "\" cy=\"" +
           Num(y_of(point.epsilon.epsilon)) + "\" r=\"2.5\" fill=\"#1f77b4\"/>\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace

int RunPlot(const PlotArgs& args, std::ostream& out) {
  if (args.out.empty()) throw InvalidArgument("out", "missing (--out curve.svg)");
  trees::CheckOutputPath(args.out, "out", {{args.event, "event"}});
  if (args.steps && *args.steps == 0) {
    throw InvalidArgument("steps", "0", "whole numbers in [1, 2^53]");
  }
  // The SVG is XML: UTF-8 text without control characters or noncharacters.
  if (!IsUtf8(args.title) || !FirstControlCharacter(args.title).empty()) {
    throw InvalidArgument("title", "\"" + args.title + "\"",
                          "UTF-8 text without control characters");
  }
  const auto event = accountant::Event::FromJson(ReadEventJson(args.event));
  std::optional<ProgressStream> progress;
  if (args.err != nullptr && !args.quiet) {
    progress.emplace(*args.err, std::chrono::steady_clock::now());
  }
  const auto curve = accountant::PrivacyCurve(
      event, args.steps.value_or(0), args.delta, args.points,
      ConversionOptionsFrom(args.orders, args.fast, args.accountant),
      [&progress](std::size_t done, std::size_t total) {
        if (progress) progress->stream() << "rdpkit plot: " << done << "/" << total << " points\n";
      });
  progress.reset();  // writes the last progress line before anything else
  for (const auto& point : curve) {
    if (!std::isfinite(point.epsilon.epsilon)) {
      throw InvalidArgument("event", "epsilon is infinite after " + std::to_string(point.steps) +
                                         " steps: there is no curve to draw");
    }
  }
  const std::string title = args.title.empty() ? "Privacy curve" : args.title;
  trees::WriteFileAtomically(args.out, Svg(curve, args.delta, title), "out");
  nlohmann::json steps = nlohmann::json::array();
  nlohmann::json epsilons = nlohmann::json::array();
  for (const auto& point : curve) {
    steps.push_back(point.steps);
    epsilons.push_back(point.epsilon.epsilon);
  }
  WriteJson(out, {{"out", args.out},
                  {"delta", args.delta},
                  {"steps", steps},
                  {"epsilon", epsilons},
                  {"certified", !args.fast}});
  return 0;
}

void RegisterPlot(CLI::App& app, Action& action) {
  auto args = std::make_shared<PlotArgs>();
  CLI::App* sub =
      app.add_subcommand("plot", "SVG of epsilon against the number of steps of an event");
  sub->add_option("--event", args->event,
                  "one step's event (with --steps), or a self_composed event: path, - or inline")
      ->required();
  AddNumberOption(sub, "--delta", &args->delta, "decimal numbers in (0, 1)",
                  "delta of every point, in (0, 1)")
      ->required();
  AddWholeNumberOption(sub, "--steps", &args->steps, "whole numbers in [1, 2^53]",
                       "number of steps (default: the count of a self_composed --event)");
  AddWholeNumberOption(sub, "--points", &args->points, "[2, 1000]",
                       "points on the curve, in [2, 1000] (default 30)");
  sub->add_option("--out", args->out, "SVG file to write")->required();
  sub->add_option("--title", args->title, "title above the plot (default: Privacy curve)");
  sub->add_option("--orders", args->orders, "comma-separated Renyi orders");
  sub->add_flag("--fast", args->fast, "double precision only (not certified)");
  AddAccountantOption(sub, &args->accountant);
  sub->add_flag("--quiet", args->quiet, "no progress line on stderr");
  args->err = &std::cerr;
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunPlot(*args, out); }; });
}

}  // namespace rdpkit::tools
